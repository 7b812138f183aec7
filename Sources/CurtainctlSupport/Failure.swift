import ArgumentParser

// The version is CurtainCore's, one constant for the daemon and the CLI.
@_exported import enum CurtainCore.CurtainVersion

extension ParsableCommand {
    /// Parses and runs, mapping ArgumentParser's usage failures (64) onto curtainctl's
    /// documented status 2.
    public static func runMappingUsageErrors(_ arguments: [String]? = nil) -> Never {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            exit()
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

/// Prints one line to stderr, prefixed with the command, and returns exit status 2: the way
/// every input error leaves curtainctl.
public func fail(_ command: String, _ message: String) -> ExitCode {
    var stderr = StandardError()
    print("curtainctl \(command): \(message)", to: &stderr)
    return ExitCode(2)
}
