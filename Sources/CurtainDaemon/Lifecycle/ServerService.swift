import Logging
import ServiceLifecycle
import Systemd
import VarlinkNIO

/// The Varlink server; READY=1 once it listens, STOPPING=1 when shutdown begins, then every
/// launch is cancelled with a final event and the connections drain.
struct ServerService<C: Clock>: Service where C.Duration == Duration {
    let server: VarlinkServer
    let driver: LaunchDriver<C>
    let notifier: Notifier
    let logger: Logger

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await cancelWhenGracefulShutdown {
                try await server.run { [notifier, logger] in
                    logger.log(.daemonReady, "ready", ["curtain_socket": "\(server.address)"])
                    notifier.ready(status: "idle")
                }
            }
        } onGracefulShutdown: { [notifier, logger, driver] in
            logger.log(.daemonStopping, "stopping: cancelling launches, draining connections")
            notifier.stopping()
            // Launches end with a final event before the streams that carry it are closed.
            Task { await driver.stop() }
        }
    }
}
