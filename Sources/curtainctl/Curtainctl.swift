import ArgumentParser
import CurtainctlSupport

#if canImport(Glibc)
import Glibc
#endif

/// `curtainctl`: control and inspect Curtain. This first cut carries the designer's tools
/// (`curve`, `timeline`); the daemon commands arrive with curtaind.
@main
struct Curtainctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curtainctl",
        abstract: "Control and inspect Curtain, the launch orchestrator.",
        discussion: """
            Timing functions are written as in CSS: linear, ease, ease-in, ease-out, ease-in-out, \
            cubic-bezier(x1, y1, x2, y2), steps(n, jump-start|jump-end|jump-none|jump-both|start|end), \
            step-start, step-end, linear(0, 0.25 75%, 1); or by Core Animation name: easeIn, easeOut, \
            easeInEaseOut, default; or as a spring: spring(mass stiffness damping initialVelocity).

            Exit status: 0 success; 1 failure (the daemon refused, or a followed launch failed or \
            was cancelled); 2 usage or input error; 3 no daemon answered.
            """,
        version: CurtainVersion.string,
        subcommands: [
            LaunchCommand.self, ListCommand.self, StatusCommand.self, WatchCommand.self, ControlCommand.self,
            ReloadCommand.self, PingCommand.self, InfoCommand.self,
            CurveCommand.self, TimelineCommand.self, RenderStub.self, SceneStub.self, ConfigStub.self, RouteStub.self,
        ]
    )

    /// `ping` that succeeds is answered before anything else is built (PingFastPath).
    /// Numbers after `--at` may be negative (extrapolation); ArgumentParser would take "-0.5"
    /// for an option, so each is attached to its option first ("--at=-0.5").
    /// Also maps ArgumentParser's usage failures (64) onto curtainctl's documented status 2.
    static func main() {
        if let status = PingFastPath.run(argc: CommandLine.argc, argv: CommandLine.unsafeArgv) { Glibc.exit(status) }
        let arguments = attachNegativeNumbers(Array(CommandLine.arguments.dropFirst()), after: ["--at"])
        runMappingUsageErrors(arguments)
    }
}

func attachNegativeNumbers(_ arguments: [String], after options: Set<String>) -> [String] {
    var result: [String] = []
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        guard options.contains(argument) else {
            result.append(argument)
            continue
        }
        var attached = 0
        while index < arguments.count, Double(arguments[index]) != nil {
            result.append("\(argument)=\(arguments[index])")
            index += 1
            attached += 1
        }
        if attached == 0 { result.append(argument) }
    }
    return result
}
