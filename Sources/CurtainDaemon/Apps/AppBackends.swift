import CurtainConfig
import CurtainCore
import Synchronization

/// The two app backends behind one `AppSupervisor`: an app with `unit` goes to systemd
/// (`UnitSupervisor`), one with `exec` is spawned (`ProcessSupervisor`). A launch stays with
/// the backend that started it (release and retarget follow it); events come from both.
struct AppBackends: AppSupervisor {
    let processes: any AppSupervisor
    let units: any AppSupervisor
    /// Launches the unit backend has (the rest are the process backend's).
    private let unitLaunches = Box()

    final class Box: Sendable {
        let launches = Mutex<Set<LaunchID>>([])
    }

    init(processes: any AppSupervisor, units: any AppSupervisor) {
        self.processes = processes
        self.units = units
    }

    /// Both backends' events, each relayed on its own backend's thread (no merging task).
    func relayEvents(to handler: @escaping @Sendable (AppEvent) -> Void) {
        processes.relayEvents(to: handler)
        units.relayEvents(to: handler)
    }

    /// Both backends' events merged into one stream (instead of `relayEvents`).
    var events: AsyncStream<AppEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppEvent.self)
        relayEvents { continuation.yield($0) }
        return stream
    }

    private func backend(of launch: LaunchID) -> any AppSupervisor {
        unitLaunches.launches.withLock { $0.contains(launch) } ? units : processes
    }

    func start(_ launch: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async {
        if snapshot.app(named: destination.app)?.unit != nil {
            unitLaunches.launches.withLock { _ = $0.insert(launch) }
            await units.start(launch, destination, route: route, snapshot: snapshot)
        } else {
            await processes.start(launch, destination, route: route, snapshot: snapshot)
        }
    }

    func release(_ launch: LaunchID) async {
        let backend = backend(of: launch)
        unitLaunches.launches.withLock { _ = $0.remove(launch) }
        await backend.release(launch)
    }

    /// Attached apps (io.curtain.App) live in the process backend whichever backend started
    /// them: a unit app's warm start is delivered there too, so the end is told there.
    func ended(_ launch: LaunchID) async {
        await processes.ended(launch)
        await units.ended(launch)
    }

    func retarget(
        from: LaunchID,
        to: LaunchID,
        _ destination: Destination,
        route: Route,
        snapshot: ConfigurationSnapshot
    ) async {
        let backend = backend(of: from)
        unitLaunches.launches.withLock {
            if $0.remove(from) != nil { $0.insert(to) }
        }
        await backend.retarget(from: from, to: to, destination, route: route, snapshot: snapshot)
    }
}
