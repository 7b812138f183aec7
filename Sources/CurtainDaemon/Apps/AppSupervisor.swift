import CurtainConfig
import CurtainCore

/// Starts, wakes and releases the apps behind launches: the app backend. The coordinator
/// says what; a backend does it (`ProcessSupervisor`: processes it spawns itself; a unit
/// backend would ask systemd) and reports back on `events`, which the driver consumes while
/// it runs. Each call carries the configuration snapshot its launch was requested with.
protocol AppSupervisor: Sendable {
    /// What the apps report (readiness, status, failures), in order; finishes when the backend stops.
    var events: AsyncStream<AppEvent> { get }
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

    var launch: LaunchID {
        switch self {
        case .ready(let id, _, _, _), .status(let id, _), .extend(let id, _), .failed(let id, _): id
        }
    }
}

/// A backend's side of `AppSupervisor.events`: yields never wait for the driver.
struct AppEventPublisher: Sendable {
    let stream: AsyncStream<AppEvent>
    private let continuation: AsyncStream<AppEvent>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(of: AppEvent.self) }

    func ready(_ id: LaunchID, _ stage: ReadinessStage, _ status: String?, _ elements: [String: Hero.Element]) {
        continuation.yield(.ready(id, stage, status: status, elements: elements))
    }
    func status(_ id: LaunchID, _ status: String) { continuation.yield(.status(id, status)) }
    func extend(_ id: LaunchID, _ seconds: Double) { continuation.yield(.extend(id, seconds: seconds)) }
    func failed(_ id: LaunchID, _ reason: String) { continuation.yield(.failed(id, reason: reason)) }
    func publish(_ event: AppEvent) { continuation.yield(event) }
    func finish() { continuation.finish() }
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
