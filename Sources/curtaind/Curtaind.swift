import ArgumentParser
import CurtainConfig
import CurtainCore
import CurtainDaemon

/// curtaind: Curtain's launch orchestrator daemon (run by systemd; see curtaind.service).
@main
struct Curtaind: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curtaind",
        abstract: "Curtain's launch orchestrator daemon.",
        discussion: """
        Serves io.curtain.Launcher over Varlink on the socket systemd passes (named "varlink"), \
        or on --socket, or on daemon.socket from the configuration; run by a user other than root \
        with the default socket, it listens on $XDG_RUNTIME_DIR/curtain/io.curtain.Launcher. Logs to journald (stderr without it). \
        SIGTERM stops it gracefully; SIGHUP reloads the configuration, keeping the running one \
        when the new one has errors. Exit status: 0 stopped, 1 failed (the cause is logged).
        """,
        version: CurtainVersion.string
    )

    @Option(help: ArgumentHelp("The configuration file (default \(Configuration.defaultPath)).", valueName: "path"))
    var config: String?

    @Option(help: ArgumentHelp("Listen here instead of daemon.socket (ignored when socket-activated).", valueName: "path"))
    var socket: String?

    func run() async throws {
        let status = await Daemon.run(.init(configPath: config, socketPath: socket))
        if status != 0 { throw ExitCode(status) }
    }
}

