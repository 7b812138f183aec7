/// What to do with a launch that arrives while another one holds the overlay.
public enum ConcurrencyPolicy: String, Sendable, Hashable, CaseIterable {
    /// Keep the overlay up and switch it to the new destination (no flicker); the old launch
    /// ends cancelled.
    case retarget
    /// Wait until the launch in flight has ended, then start.
    case queue
    /// Cancel the launch in flight and start again from the appear animation.
    case replace
    /// Refuse the new launch.
    case ignore
}

/// What a launch does when its app is not ready by the maximum hold (or fails before).
public enum TimeoutAction: String, Sendable, Hashable, CaseIterable {
    /// Switch to the route table's fallback destination and wait for it, once, one more
    /// maximum hold; fail if there is no fallback or it does not get ready either.
    case fallback
    case fail
}

/// The coordinator's rules, from the configuration. Times in seconds.
public struct LaunchSettings: Sendable, Hashable {
    public var minimumHold: Double
    public var maximumHold: Double
    public var onTimeout: TimeoutAction
    /// Policy for a new launch while the current one is presenting or holding.
    public var whileLoading: ConcurrencyPolicy
    /// Policy while the current one is revealing.
    public var whileRevealing: ConcurrencyPolicy
    /// A launch for the same destination as one in flight, this soon after it, is merged into it.
    public var duplicateWindow: Double
    /// At most this many launches wait in the queue; more are refused (busy).
    public var maximumQueued: Int
    /// Ended launches kept for `Get`/`List`.
    public var history: Int

    public init(
        minimumHold: Double = 0.3,
        maximumHold: Double = 10,
        onTimeout: TimeoutAction = .fallback,
        whileLoading: ConcurrencyPolicy = .retarget,
        whileRevealing: ConcurrencyPolicy = .queue,
        duplicateWindow: Double = 1,
        maximumQueued: Int = 8,
        history: Int = 64
    ) {
        self.minimumHold = minimumHold
        self.maximumHold = maximumHold
        self.onTimeout = onTimeout
        self.whileLoading = whileLoading
        self.whileRevealing = whileRevealing
        self.duplicateWindow = duplicateWindow
        self.maximumQueued = maximumQueued
        self.history = history
    }
}
