import CurtainConfig
import CurtainCore
import Foundation

@testable import CurtainDaemon

/// A process supervisor with one app, `app`, that runs `exec` on the "home" screen; its notify
/// socket in `directory`, its log in `log` (the supervisor suites' set-up).
struct OneAppSupervisor {
    let supervisor: ProcessSupervisor
    let app: String
    let snapshot: ConfigurationSnapshot

    init(app: String, exec: [String], directory: URL, log: CollectedLog) throws {
        let configuration = try Configuration(
            toml: """
                [[apps]]
                name = "\(app)"
                exec = [\(exec.map { "\"\($0)\"" }.joined(separator: ", "))]
                screens = ["home"]
                default_screen = "home"
                """,
            file: "\(app).toml"
        )
        supervisor = try ProcessSupervisor(
            notifySocket: directory.appendingPathComponent("notify").path,
            apiSocket: nil,
            logger: log.logger
        )
        self.app = app
        snapshot = ConfigurationSnapshot(configuration)
    }

    /// Starts the app for launch `id`: one no other suite uses, since a supervisor takes its
    /// launch's leftovers among this process's children by CURTAIN_LAUNCH_ID.
    func start(_ id: LaunchID) async {
        await supervisor.start(id, Destination(app: app, screen: "home"), route: .normal(app: app), snapshot: snapshot)
    }
}
