import NIOCore
import Synchronization

/// Accepted connections between their initialisation (on an event loop) and their serving
/// task, so that shutdown can close the ones no task reached, and refuse new ones.
final class AcceptedConnections: Sendable {
    private struct State {
        var accepting = true
        var waiting: [ObjectIdentifier: ServerConnection] = [:]
    }

    private let state = Mutex(State())

    /// Wraps `channel` with `make` and keeps it until `take`; nil once shutdown began.
    func adopt(_ channel: any Channel, _ make: () throws -> ServerConnection) throws -> ServerConnection? {
        try state.withLock { state in
            guard state.accepting else { return nil }
            let connection = try make()
            state.waiting[ObjectIdentifier(channel)] = connection
            return connection
        }
    }

    /// Hands a connection to its serving task; false if shutdown already claimed it.
    func take(_ connection: ServerConnection) -> Bool {
        state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(connection.channel)) != nil }
    }

    /// Stops adopting and returns the connections no task took, for closing.
    func stop() -> [ServerConnection] {
        state.withLock { state in
            state.accepting = false
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
    }
}
