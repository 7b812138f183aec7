import CurtainConfig
import CurtainCore
import Synchronization
import Systemd

/// Starts, wakes and releases the apps behind launches: the app backend. The coordinator
/// says what; a backend does it (`ProcessSupervisor`: processes it spawns itself; a unit
/// backend would ask systemd) and reports back on `events`, which the driver consumes while
/// it runs. Each call carries the configuration snapshot its launch was requested with.
protocol AppSupervisor: Sendable {
    /// What the apps report (readiness, status, failures), in order; finishes when the backend stops.
    var events: AsyncStream<AppEvent> { get }
    /// The same events handed to `handler` as they happen, in order, on the backend's thread
    /// (the driver's inbox: no stream and no consumer task between an app's READY=1 and
    /// `revealing`). Call once, instead of consuming `events`. By default, `events` is consumed
    /// by a task that calls `handler`.
    func relayEvents(to handler: @escaping @Sendable (AppEvent) -> Void)
    func start(_ launch: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async
    func release(_ launch: LaunchID) async
    /// Launch `to` takes over launch `from`'s app (a retarget to the same app): the instance
    /// keeps running and gets the new destination — now if it can take it, else once it can.
    func retarget(
        from: LaunchID,
        to: LaunchID,
        _ destination: Destination,
        route: Route,
        snapshot: ConfigurationSnapshot
    ) async
    /// The launch has ended (revealed, failed or cancelled): an attached app that was told to
    /// hide elements for it shows them again.
    func ended(_ launch: LaunchID) async
}

extension AppSupervisor {
    func ended(_ launch: LaunchID) async {}
    func relayEvents(to handler: @escaping @Sendable (AppEvent) -> Void) {
        let events = self.events
        Task { for await event in events { handler(event) } }
    }
}

/// A route handed to an attached app (a warm start): io.curtain.App's `Delivery`, typed.
struct AppDelivery: Sendable, Hashable {
    let launch: LaunchID
    let route: Route
    let destination: Destination
    /// Its own elements the app hides until the launch ends (`CompiledTransitions.hiddenElements`).
    var hide: [String] = []
}

/// What an app backend tells the driver about the app of a launch.
enum AppEvent: Sendable, Hashable {
    /// It reached a readiness stage (with the elements it reported, for the reveal).
    case ready(LaunchID, ReadinessStage, status: String?, elements: [String: Hero.Element])
    case status(LaunchID, String)
    /// It needs this many more seconds (EXTEND_TIMEOUT_USEC).
    case extend(LaunchID, seconds: Double)
    /// It could not be started, or went away before it was ready.
    case failed(LaunchID, reason: String)
    /// It waits for its messages until this one to be handled (BARRIER=1): answered once the
    /// driver has applied the events before it.
    case barrier(LaunchID, NotifyBarrier)

    var launch: LaunchID {
        switch self {
        case .ready(let id, _, _, _), .status(let id, _), .extend(let id, _), .failed(let id, _), .barrier(let id, _):
            id
        }
    }
}

/// A backend's side of `AppSupervisor.events`: publishing never waits for the driver. Events
/// go to the handler given to `relay` (in order, on the publishing thread), or, until one is
/// given, wait for it in order; `stream` relays them into an AsyncStream instead.
struct AppEventPublisher: Sendable {
    private final class Relay: Sendable {
        struct State {
            var waiting: [AppEvent] = []
            var handler: (@Sendable (AppEvent) -> Void)?
            var finish: (@Sendable () -> Void)?
            var finished = false
        }
        let state = Mutex(State())
    }
    private let relay = Relay()

    init() {}

    /// Every event from now on (and those waiting) goes to `handler`; `finished` is called once
    /// the backend stops. Only the first call counts.
    func relay(to handler: @escaping @Sendable (AppEvent) -> Void, finished: (@Sendable () -> Void)? = nil) {
        let done: (@Sendable () -> Void)? = relay.state.withLock { s in
            guard s.handler == nil else { return nil }
            // Under the lock, so an event published meanwhile cannot overtake these.
            s.waiting.forEach(handler)
            s.waiting = []
            s.handler = handler
            s.finish = finished
            return s.finished ? finished : nil
        }
        done?()
    }

    /// The events as a stream (for one consumer; instead of `relay`).
    var stream: AsyncStream<AppEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppEvent.self)
        relay(to: { continuation.yield($0) }, finished: { continuation.finish() })
        return stream
    }

    func ready(_ id: LaunchID, _ stage: ReadinessStage, _ status: String?, _ elements: [String: Hero.Element]) {
        publish(.ready(id, stage, status: status, elements: elements))
    }
    func status(_ id: LaunchID, _ status: String) { publish(.status(id, status)) }
    func extend(_ id: LaunchID, _ seconds: Double) { publish(.extend(id, seconds: seconds)) }
    func failed(_ id: LaunchID, _ reason: String) { publish(.failed(id, reason: reason)) }
    func publish(_ event: AppEvent) {
        relay.state.withLock { s in
            guard !s.finished else { return }
            if let handler = s.handler { handler(event) } else { s.waiting.append(event) }
        }
    }
    func finish() {
        let done = relay.state.withLock { s in
            defer { s.finished = true }
            return s.finished ? nil : s.finish
        }
        done?()
    }
}

/// Starts nothing: the app is started by someone else and reports through io.curtain.App
/// (a warm app, a test, or a renderer that launches apps itself).
struct ExternalApps: AppSupervisor {
    var events: AsyncStream<AppEvent> { AsyncStream { $0.finish() } }
    func start(_ launch: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async {}
    func release(_ launch: LaunchID) async {}
    func retarget(
        from: LaunchID,
        to: LaunchID,
        _ destination: Destination,
        route: Route,
        snapshot: ConfigurationSnapshot
    ) async {}
}
