import ArgumentParser
import CurtainctlSupport

/// `curtainctl config …` and `curtainctl route …`: the commands that read TOML. They live in
/// a helper that curtainctl runs, so that curtainctl itself never loads the configuration
/// reader and starts in about a millisecond.
@main
struct CurtainctlConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curtainctl",
        abstract: "curtainctl's configuration commands (run through curtainctl).",
        version: CurtainVersion.string,
        subcommands: [ConfigCommand.self, RouteCommand.self]
    )

    static func main() { runMappingUsageErrors() }
}
