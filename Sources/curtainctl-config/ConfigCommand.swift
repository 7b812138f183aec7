import ArgumentParser
import CurtainConfig
import CurtainctlSupport

/// `curtainctl config check`: validate a configuration file the way curtaind will read it.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with Curtain's configuration file.",
        subcommands: [Check.self, PolkitRuleCommand.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a configuration file: every problem, with file:line:column.",
            discussion: """
                Without PATH, checks \(Configuration.defaultPath) (or reports that the built-in \
                defaults apply when it does not exist). Exit status: 0 valid, 1 invalid, 2 unreadable.
                """
        )

        @Argument(help: ArgumentHelp("The file to check.", valueName: "path"))
        var path: String?

        func run() throws {
            let file = path ?? Configuration.defaultPath
            guard let configuration = try loadConfiguration(file, explicit: path != nil, command: "config check") else {
                print("\(file): not found; the built-in defaults apply (\(Configuration().summary))")
                return
            }
            print("\(file): ok — \(configuration.summary)")
        }
    }
}

/// `curtainctl config polkit-rule`: the polkit rule for a configuration's units (docs/units.md).
struct PolkitRuleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "polkit-rule",
        abstract: "Print the polkit rule that lets curtaind manage exactly the configuration's units.",
        discussion: """
            Install it as /etc/polkit-1/rules.d/50-curtain.rules (it overrides the one in \
            /usr/share/polkit-1/rules.d that make install generated from the shipped configuration).
            """
    )

    @Argument(help: ArgumentHelp("The configuration file.", valueName: "path"))
    var path: String?

    @Option(help: ArgumentHelp("The user curtaind runs as.", valueName: "user"))
    var user = "curtain"

    func run() throws {
        let file = path ?? Configuration.defaultPath
        let configuration =
            try loadConfiguration(file, explicit: path != nil, command: "config polkit-rule") ?? Configuration()
        print(PolkitRule.text(for: configuration, user: user, source: file), terminator: "")
    }
}

/// Reads and checks a configuration. nil when `file` is the default path and does not exist.
/// Problems go to stderr, one per line; then exit 1 (invalid) or 2 (unreadable).
func loadConfiguration(_ file: String, explicit: Bool, command: String) throws -> Configuration? {
    guard Files.exists(file) else {
        if explicit { throw fail(command, "\(file): no such file") }
        return nil
    }
    let bytes: [UInt8]
    do { bytes = try Files.read(file) } catch { throw fail(command, "cannot read \(error)") }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw fail(command, "\(file): not UTF-8 text") }
    do {
        return try Configuration(toml: text, file: file)
    } catch {
        var stderr = StandardError()
        for problem in error.errors { print(problem, to: &stderr) }
        print(
            "curtainctl \(command): \(file) has \(error.errors.count) problem\(error.errors.count == 1 ? "" : "s")",
            to: &stderr
        )
        throw ExitCode(1)
    }
}
