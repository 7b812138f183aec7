import CurtainConfig
import CurtainCore
import Synchronization

/// The two app backends behind one `AppSupervisor`: an app with `unit` goes to systemd
/// (`UnitSupervisor`), one with `exec` is spawned (`ProcessSupervisor`). A launch stays with
/// the backend that started it (release and retarget follow it); events come from both.
struct AppBackends: AppSupervisor {
    let processes: any AppSupervisor
    let units: any AppSupervisor
    let events: AsyncStream<AppEvent>
    /// Launches the unit backend has (the rest are the process backend's).
    private let unitLaunches = Box()

    final class Box: Sendable {
        let launches = Mutex<Set<LaunchID>>([])
    }

    init(processes: any AppSupervisor, units: any AppSupervisor) {
        self.processes = processes
        self.units = units
        let (stream, continuation) = AsyncStream.makeStream(of: AppEvent.self)
        events = stream
        let (processEvents, unitEvents) = (processes.events, units.events)
        Task {
            await withDiscardingTaskGroup { group in
                group.addTask { for await event in processEvents { continuation.yield(event) } }
                group.addTask { for await event in unitEvents { continuation.yield(event) } }
            }
            continuation.finish()
        }
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
