/// What the overlay shows at an instant: which transition of which launch, at what local
/// time of its timeline. The daemon evaluates the compiled timeline at `time`.
public struct Presentation: Sendable, Hashable {
    public enum Transition: String, Sendable, Hashable { case appear, reveal }

    public let launch: LaunchID
    public let transition: Transition
    /// Seconds into the transition's timeline.
    public let time: Double
    /// Whether values change from here on without further input (false while paused or
    /// holding on the appear transition's last frame).
    public let isMoving: Bool

    public init(launch: LaunchID, transition: Transition, time: Double, isMoving: Bool) {
        self.launch = launch
        self.transition = transition
        self.time = time
        self.isMoving = isMoving
    }
}

extension Coordinator {
    /// The overlay at `t` (not before the coordinator's `now`), or nil when there is none.
    public func presentation(at t: Double) -> Presentation? {
        guard let current = active else { return nil }
        switch current.phase {
        case .presenting(let clock):
            let moving = clock.scheduledEnd != nil
            return Presentation(
                launch: current.launch.id,
                transition: .appear,
                time: clock.progress(at: t) * current.request.appearDuration,
                isMoving: moving
            )
        case .holding:
            return Presentation(
                launch: current.launch.id,
                transition: .appear,
                time: current.request.appearDuration,
                isMoving: false
            )
        case .revealing(let clock):
            return Presentation(
                launch: current.launch.id,
                transition: .reveal,
                time: clock.progress(at: t) * current.request.revealDuration,
                isMoving: clock.scheduledEnd != nil
            )
        }
    }
}
