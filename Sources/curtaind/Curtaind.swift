import CurtainConfig
import CurtainCore
import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// curtaind: Curtain's launch orchestrator daemon (run by systemd; see curtaind.service).
///
/// Its two options are read here by hand: swift-argument-parser imports FoundationEssentials on
/// Linux, and curtaind maps no Foundation library at all (3.7 MiB resident for that one;
/// BENCHMARKS.md, scenario 5). The manual page is man/curtaind.8.
@main
enum Curtaind {
    static let usage = "USAGE: curtaind [--config <path>] [--socket <path>]"

    static let help = """
        OVERVIEW: Curtain's launch orchestrator daemon.

        Serves io.curtain.Launcher over Varlink on the socket systemd passes (named "varlink"), \
        or on --socket, or on daemon.socket from the configuration; run by a user other than root \
        with the default socket, it listens on $XDG_RUNTIME_DIR/curtain/io.curtain.Launcher. Logs to journald (stderr without it). \
        SIGTERM stops it gracefully; SIGHUP reloads the configuration, keeping the running one \
        when the new one has errors. Exit status: 0 stopped, 1 failed (the cause is logged).

        \(usage)

        OPTIONS:
          --config <path>         The configuration file (default \(Configuration.defaultPath)).
          --socket <path>         Listen here instead of daemon.socket (ignored when socket-activated).
          --version               Show the version.
          -h, --help              Show help information.

        """

    /// What the command line asks for.
    enum Command {
        case run(Daemon.Options)
        case help
        case version
        /// A usage error, its message (exit status 64, EX_USAGE, as before).
        case usage(String)
    }

    /// `--config P`, `--config=P`, `--socket P`, `--socket=P`, `--help`/`-h`, `--version`.
    static func parse(_ arguments: [String]) -> Command {
        var config: String?
        var socket: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return .help }
            if argument == "--version" { return .version }
            let (name, inline) =
                argument.firstIndex(of: "=").map {
                    (String(argument[..<$0]), Optional(String(argument[argument.index(after: $0)...])))
                }
                ?? (argument, nil)
            guard name == "--config" || name == "--socket" else {
                return .usage(
                    argument.hasPrefix("-") ? "Unknown option '\(argument)'" : "Unexpected argument '\(argument)'"
                )
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count, !arguments[index].hasPrefix("-") else {
                    return .usage("Missing value for '\(name) <path>'")
                }
                value = arguments[index]
                index += 1
            }
            if name == "--config" {
                guard config == nil else { return .usage("'--config' given twice") }
                config = value
            } else {
                guard socket == nil else { return .usage("'--socket' given twice") }
                socket = value
            }
        }
        return .run(.init(configPath: config, socketPath: socket))
    }

    static func main() {
        switch parse(Array(CommandLine.arguments.dropFirst())) {
        case .help:
            print(help, terminator: "")
        case .version:
            print(CurtainVersion.string)
        case .usage(let message):
            let text = Array("Error: \(message)\n\(usage)\n  See 'curtaind --help' for more information.\n".utf8)
            _ = text.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            exit(64)
        case .run(var options):
            options.threadCaches = Allocator.turnOffThreadCaches()
            let configured = options
            exitOnPool { await Daemon.run(configured) }
        }
    }

    /// Runs `body` on the concurrency pool and exits with its status; the main thread waits
    /// meanwhile with every signal blocked, as the pool's threads do (libdispatch's signal
    /// sources take them). Not an `async main`: that ends in `dispatch_main`, whose
    /// `pthread_exit` unwinds the main thread's stack through libgcc — a binary search of
    /// `.eh_frame_hdr` and reads of `.eh_frame` that kept ≈ 0.6 MiB of them, and libgcc's
    /// unwinder, resident in an idle curtaind (issue 18).
    static func exitOnPool(_ body: @escaping @Sendable () async -> Int32) -> Never {
        // The priority an async main's task has (a task made on the main thread would take the
        // thread's, user-initiated, and its own pool threads).
        Task(priority: .medium) { exit(await body()) }
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        while true { pause() }  // with every signal blocked, never returns
    }
}
