import Logging
import ServiceLifecycle
import Systemd
import VarlinkNIO

/// The Varlink server. On shutdown it stops accepting, ends the calls still open (streams get
/// a final reply) and closes the connections; `run` returns when they are closed.
struct ServerService: Service {
    let server: VarlinkServer
    /// Called once the socket accepts connections (curtaind: the journal line and READY=1).
    let onListening: @Sendable () -> Void

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await server.run(onListening: onListening)
        }
    }
}

/// The first step of shutdown: the journal line and STOPPING=1, before anything stops.
struct StoppingService: Service {
    let announce: @Sendable () -> Void

    func run() async {
        // Cancelled rather than shut down gracefully: stopping all the same.
        try? await gracefulShutdown()
        announce()
    }
}
