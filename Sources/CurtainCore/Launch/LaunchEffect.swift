/// One change of a launch's state, with its reason, at the time it happened (a deadline's
/// exact time, not when somebody noticed).
public struct LaunchTransition: Sendable, Hashable {
    public let launch: LaunchID
    public let from: LaunchState?
    public let to: LaunchState
    public let reason: String
    public let time: Double

    public init(launch: LaunchID, from: LaunchState?, to: LaunchState, reason: String, time: Double) {
        self.launch = launch
        self.from = from
        self.to = to
        self.reason = reason
        self.time = time
    }
}

/// What the daemon must do; the coordinator itself does no IO.
public enum LaunchEffect: Sendable, Hashable {
    /// Put the overlay up (from the first frame of the appear transition).
    case showOverlay(LaunchID)
    /// Start the destination's app, or wake it and deliver the route if it runs.
    case startApp(LaunchID, Destination)
    /// The launch no longer needs its app: stop one that was started for it alone.
    case releaseApp(LaunchID)
    /// A retarget to the same app: the instance launch `from` started (perhaps still loading)
    /// now serves launch `to` and its destination — handed over, never stopped and started again.
    case retargetApp(from: LaunchID, to: LaunchID, Destination)
    /// Take the overlay down; `retain` keeps its last frame for the next owner (the reveal
    /// finished, the app is on screen).
    case hideOverlay(LaunchID, retain: Bool)
    /// Tell observers and the journal.
    case transition(LaunchTransition)
}

/// Why a request did not start a launch of its own.
public enum LaunchDecision: Sendable, Hashable {
    case started
    case queued(behind: LaunchID)
    /// The same destination was launched moments ago; the caller gets that launch.
    case merged(into: LaunchID)
    /// `ignore` policy, or a full queue.
    case busy(LaunchID)
}
