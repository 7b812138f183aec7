import ArgumentParser
import CurtainctlSupport
import CurtainConfig

/// `curtainctl config check`: validate a configuration file the way curtaind will read it.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with Curtain's configuration file.",
        subcommands: [Check.self]
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
        print("curtainctl \(command): \(file) has \(error.errors.count) problem\(error.errors.count == 1 ? "" : "s")", to: &stderr)
        throw ExitCode(1)
    }
}
