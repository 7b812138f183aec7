import CurtainCore
import Synchronization

/// Each launch as its last state or destination event left it, readable on any thread: a
/// Launch call's stream puts the launch into every event's reply from here, not by a call to
/// the driver's actor — a round trip from the connection's event loop to the frame clock's
/// thread and back per event, which was most of the wake-ups of a launch (issue 18).
/// The driver keeps it as long as its coordinator's history keeps the launch.
final class PublishedLaunches: Sendable {
    private let launches = Mutex<[LaunchID: Launch]>([:])

    subscript(id: LaunchID) -> Launch? { launches.withLock { $0[id] } }

    func set(_ launch: Launch) { launches.withLock { $0[launch.id] = launch } }

    /// Drops every launch not in `known`.
    func keep(only known: Set<LaunchID>) {
        launches.withLock { launches in
            for stale in launches.keys where !known.contains(stale) { launches[stale] = nil }
        }
    }
}
