import ArgumentParser

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

        Exit status: 0 success, 1 failure, 2 usage or input error.
        """,
        version: CurtainVersion.string,
        subcommands: [CurveCommand.self, TimelineCommand.self, ConfigCommand.self, RouteCommand.self]
    )

    /// Numbers after `--at` may be negative (extrapolation); ArgumentParser would take "-0.5"
    /// for an option, so each is attached to its option first ("--at=-0.5").
    /// Also maps ArgumentParser's usage failures (64) onto curtainctl's documented status 2.
    static func main() {
        let arguments = attachNegativeNumbers(Array(CommandLine.arguments.dropFirst()), after: ["--at"])
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                var stderr = StandardError()
                print(fullMessage(for: error), to: &stderr)
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}

func attachNegativeNumbers(_ arguments: [String], after options: Set<String>) -> [String] {
    var result: [String] = []
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        guard options.contains(argument) else { result.append(argument); continue }
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

enum CurtainVersion {
    static let string = "0.1.0"
}

/// Prints one line to stderr, prefixed with the command, and returns exit status 2: the way
/// every input error leaves curtainctl.
func fail(_ command: String, _ message: String) -> ExitCode {
    var stderr = StandardError()
    print("curtainctl \(command): \(message)", to: &stderr)
    return ExitCode(2)
}
