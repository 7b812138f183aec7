import CurtainConfig
import CurtainCore

/// Starts, wakes and releases the apps behind launches: the app backend. The coordinator
/// says what; a backend does it (`ProcessSupervisor`: processes it spawns itself; a unit
/// backend would ask systemd) and reports back through `SupervisorEvents`. Each call carries
/// the configuration snapshot its launch was requested with.
protocol AppSupervisor: Sendable {
    func start(_ launch: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async
    func release(_ launch: LaunchID) async
    /// Launch `to` takes over launch `from`'s app (a retarget to the same app): the instance
    /// keeps running and gets the new destination — now if it can take it, else once it can.
    func retarget(from: LaunchID, to: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async
}

/// A route handed to an attached app (a warm start): io.curtain.App's `Delivery`, typed.
struct AppDelivery: Sendable, Hashable {
    let launch: LaunchID
    let route: Route
    let destination: Destination
}

/// What a supervisor tells the driver about an app.
struct SupervisorEvents: Sendable {
    var ready: @Sendable (LaunchID, ReadinessStage, String?, [String: Hero.Frame]) async -> Void
    var status: @Sendable (LaunchID, String) async -> Void
    var extend: @Sendable (LaunchID, Double) async -> Void
    var failed: @Sendable (LaunchID, String) async -> Void
}

/// Starts nothing: the app is started by someone else and reports through io.curtain.App
/// (a warm app, a test, or a renderer that launches apps itself).
struct ExternalApps: AppSupervisor {
    func start(_ launch: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async {}
    func release(_ launch: LaunchID) async {}
    func retarget(from: LaunchID, to: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async {}
}
