import ArgumentParser
import CurtainConfig
import CurtainCore
import CurtainctlSupport
import JSON

/// `curtainctl route explain`: where a launch would land, and why every rule won or lost.
struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Explain how launches are routed.",
        subcommands: [Explain.self]
    )

    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the destination of a launch and why each rule won or lost.",
            discussion: """
                Works offline from the configuration file (\(Configuration.defaultPath) unless \
                --config is given). Exit status: 0 routed, 1 refused (no rule and no fallback), \
                2 invalid input or configuration.

                Examples:
                  curtainctl route explain --deeplink 'shop://product/42?ref=mail'
                  curtainctl route explain --push '{"aps": {"category": "chat"}, "target": {"thread": "t1"}}'
                  curtainctl route explain --normal shop --config ./curtain.toml
                """
        )

        @Option(help: ArgumentHelp("A deep link.", valueName: "url"))
        var deeplink: String?

        @Option(help: ArgumentHelp("A push notification payload (a JSON object).", valueName: "json"))
        var push: String?

        @Option(help: ArgumentHelp("The app a push notification names, if any.", valueName: "app"))
        var app: String?

        @Option(help: ArgumentHelp("A normal start of this app.", valueName: "app"))
        var normal: String?

        @Option(help: ArgumentHelp("The configuration file.", valueName: "path"))
        var config: String?

        func run() throws {
            let given = [deeplink != nil, push != nil, normal != nil].filter { $0 }.count
            guard given == 1 else { throw fail("route explain", "give exactly one of --deeplink, --push, --normal") }
            let route: Route
            if let deeplink {
                route = .deeplink(deeplink)
            } else if let normal {
                route = .normal(app: normal)
            } else {
                let payload: JSONValue
                do { payload = try JSONParser.parse(Array(push!.utf8)) } catch {
                    throw fail("route explain", "--push: \(error)")
                }
                guard case .object = payload else {
                    throw fail("route explain", "--push: the payload must be a JSON object")
                }
                route = .push(app: app, payload: payload)
            }
            let file = config ?? Configuration.defaultPath
            let configuration =
                try loadConfiguration(file, explicit: config != nil, command: "route explain") ?? Configuration()

            let resolution: RouteTable.Resolution
            do { resolution = try configuration.routes.resolve(route) } catch {
                if case .unmatched = error { throw fail1("route explain", error.description) }
                throw fail("route explain", error.description)
            }
            let d = resolution.destination
            let parameters = d.parameters.keys.sorted().map { "\($0)=\(d.parameters[$0]!)" }.joined(separator: " ")
            print(
                "destination: \(d.app)/\(d.screen)\(parameters.isEmpty ? "" : "  \(parameters)")\(d.reason.map { "  (reason=\($0))" } ?? "")"
            )
            if resolution.candidates.isEmpty { return }
            print("rules:")
            for candidate in resolution.candidates {
                let verdict =
                    switch candidate.verdict {
                    case .won: "won"
                    case .lost(let winner, let why): "matched, lost to rule \(winner + 1): \(why)"
                    case .noMatch(let why): "no match: \(why)"
                    }
                let mark =
                    if case .won = candidate.verdict { "✓" } else if case .lost = candidate.verdict { "·" } else { "✗" }
                print("  \(mark) \(candidate.rule + 1). \(candidate.description) — \(verdict)")
            }
        }
    }
}

/// Like `fail`, for a refusal (status 1) rather than bad input.
func fail1(_ command: String, _ message: String) -> ExitCode {
    var stderr = StandardError()
    print("curtainctl \(command): \(message)", to: &stderr)
    return ExitCode(1)
}
