/// A launch's number, unique for the daemon's lifetime.
public struct LaunchID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public var description: String { String(value) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
}

/// A launch to start: the route already resolved to a destination (by `RouteTable`), and the
/// lengths of the transitions that will show it.
public struct LaunchRequest: Sendable, Hashable {
    public var id: LaunchID
    public var route: Route
    public var destination: Destination
    /// The readiness stage the destination's app must reach before the reveal.
    public var requirement: ReadinessStage
    public var appearDuration: Double
    public var revealDuration: Double
    /// Where the launch goes when its app is not ready in time (`TimeoutAction.fallback`).
    public var fallback: Destination?
    /// The readiness stage the fallback's app must reach (its own, not the first app's).
    public var fallbackRequirement: ReadinessStage
    /// A policy for this launch instead of the configured ones.
    public var policy: ConcurrencyPolicy?
    /// Whether the reveal's last frame stays for the next owner of the screen.
    public var retain: Bool
    /// Which of the splash's text variants this launch shows (chosen by the daemon).
    public var textVariant: Int

    public init(
        id: LaunchID,
        route: Route,
        destination: Destination,
        requirement: ReadinessStage = .ready,
        appearDuration: Double,
        revealDuration: Double,
        fallback: Destination? = nil,
        fallbackRequirement: ReadinessStage = .ready,
        policy: ConcurrencyPolicy? = nil,
        retain: Bool = true,
        textVariant: Int = 0
    ) {
        self.fallbackRequirement = fallbackRequirement
        self.retain = retain
        self.textVariant = textVariant
        self.id = id
        self.route = route
        self.destination = destination
        self.requirement = requirement
        self.appearDuration = appearDuration
        self.revealDuration = revealDuration
        self.fallback = fallback
        self.policy = policy
    }
}

/// What anyone may know about a launch: the answer to `Get` and `List`.
public struct Launch: Sendable, Hashable {
    public let id: LaunchID
    public let route: Route
    public internal(set) var destination: Destination
    public internal(set) var state: LaunchState
    /// Why the launch is in its state ("app ready (content)", "retargeted to launch 7", …).
    public internal(set) var reason: String
    public let requestedAt: Double
    public internal(set) var changedAt: Double
    /// The furthest readiness stage the app has reported, and its last STATUS= line.
    public internal(set) var readiness: ReadinessStage?
    public internal(set) var appStatus: String?
    public internal(set) var textVariant: Int = 0
    /// When the app reached the stage the launch needs.
    public internal(set) var readyAt: Double?
}
