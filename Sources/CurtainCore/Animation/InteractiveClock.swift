/// Progress of a transition under interactive control: seek, pause, resume, reverse, and
/// finish or cancel with a completion speed and curve (UIKit's percent-driven transitions,
/// Hero's update/finish/cancel). Pure: every operation takes the current time in seconds.
///
/// Finishing from progress p takes (1 − p)·D / completionSpeed, cancelling takes
/// p·D / completionSpeed, and progress is exactly 1 (or 0) from that instant on.
public struct InteractiveClock: Sendable, Hashable {
    /// Where the transition stands at a given time.
    public enum Phase: String, Sendable, Hashable {
        case running, reversing, paused, finishing, cancelling, finished, cancelled
        /// Finished or cancelled: the clock accepts no operation any more.
        public var isEnded: Bool { self == .finished || self == .cancelled }
    }

    /// Why an operation was refused; the clock is left as it was.
    public enum ClockError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The transition had finished or been cancelled by then.
        case ended(Phase)
        /// A seek to a progress outside [0, 1] (or not finite).
        case progressOutOfRange(Double)
        /// A completion speed not greater than 0 (or not finite).
        case invalidCompletionSpeed(Double)

        /// A sentence for the caller, e.g. `progress 1.5 is not within [0, 1]`.
        public var description: String {
            switch self {
            case .ended(let phase):
                "the transition has already \(phase.rawValue == "finished" ? "finished" : "been cancelled")"
            case .progressOutOfRange(let p): "progress \(p) is not within [0, 1]"
            case .invalidCompletionSpeed(let s): "completion speed \(s) must be greater than 0"
            }
        }
    }

    private enum State: Sendable, Hashable {
        /// Moving at 1/D per second from `progress` at `time`; `forward` false when reversed.
        case moving(time: Double, progress: Double, forward: Bool)
        case paused(progress: Double)
        /// Heading to `target` (0 or 1) along `curve` from `time` until exactly `end`.
        case completing(time: Double, end: Double, from: Double, target: Double, curve: TimingFunction)
        case ended(Phase)
    }

    /// The transition's duration D in seconds (of the timeline it drives).
    public let duration: Double
    private var state: State

    /// A clock that starts running forward from progress 0 at `time`.
    public init(duration: Double, startingAt time: Double) {
        precondition(duration >= 0 && duration.isFinite)
        self.duration = duration
        state = duration == 0 ? .ended(.finished) : .moving(time: time, progress: 0, forward: true)
    }

    /// Progress in [0, 1] at time `t` (curves that overshoot may leave [0, 1] while completing).
    public func progress(at t: Double) -> Double { resolved(at: t).progress }

    /// The phase at time `t`; a clock past its scheduled end reads as finished or cancelled
    /// without being told.
    public func phase(at t: Double) -> Phase { resolved(at: t).phase }

    /// When the clock ends if nobody touches it, and how (finished or cancelled); nil while
    /// paused or once ended. A driver sleeps until `time` and then treats the clock as ended,
    /// so rounding in `progress(at:)` can never keep a transition alive past its end.
    public var scheduledEnd: (time: Double, phase: Phase)? {
        switch state {
        case .moving(let time, let progress, let forward):
            return forward ? (time + (1 - progress) * duration, .finished) : (time + progress * duration, .cancelled)
        case .completing(_, let end, _, let target, _):
            return (end, target == 1 ? .finished : .cancelled)
        case .paused, .ended:
            return nil
        }
    }

    /// Whether the clock had ended by `t`, by its own state or by its scheduled end.
    public func hasEnded(at t: Double) -> Phase? {
        if case .ended(let phase) = state { return phase }
        if let end = scheduledEnd, t >= end.time { return end.phase }
        return nil
    }

    /// Jumps to `progress`; a moving clock carries on from there, a paused one stays put.
    /// A completing clock stops completing and stays put, as if paused.
    /// - Throws: `ClockError.progressOutOfRange` unless `progress` is within [0, 1];
    ///   `ClockError.ended` if the transition has ended by `t`.
    public mutating func seek(to progress: Double, at t: Double) throws(ClockError) {
        guard progress.isFinite, (0...1).contains(progress) else { throw .progressOutOfRange(progress) }
        switch try live(at: t) {
        case .moving(_, _, let forward): state = .moving(time: t, progress: progress, forward: forward)
        default: state = .paused(progress: progress)
        }
    }

    /// Freezes progress where it is at `t`.
    /// - Throws: `ClockError.ended` if the transition has ended by `t`.
    public mutating func pause(at t: Double) throws(ClockError) {
        _ = try live(at: t)
        state = .paused(progress: progress(at: t))
    }

    /// Carries on forward from a pause (or from a reversal, or an unfinished completion).
    public mutating func resume(at t: Double) throws(ClockError) {
        _ = try live(at: t)
        state = .moving(time: t, progress: progress(at: t), forward: true)
    }

    /// Runs backward from the current progress at the normal rate; reaching 0 cancels.
    public mutating func reverse(at t: Double) throws(ClockError) {
        _ = try live(at: t)
        state = .moving(time: t, progress: progress(at: t), forward: false)
    }

    /// Completes the transition to progress 1 from where it is at `t`.
    /// - Parameters:
    ///   - t: The current time, in seconds.
    ///   - completionSpeed: Rate relative to the normal one: from progress p the rest takes
    ///     (1 − p)·D / completionSpeed seconds.
    ///   - curve: The easing of the remaining way.
    /// - Throws: `ClockError.invalidCompletionSpeed` unless `completionSpeed` is finite and greater
    ///   than 0; `ClockError.ended` if the transition has ended by `t`.
    public mutating func finish(
        at t: Double,
        completionSpeed: Double = 1,
        curve: TimingFunction = .linear
    ) throws(ClockError) {
        try complete(to: 1, at: t, completionSpeed: completionSpeed, curve: curve)
    }

    /// Takes the transition back to progress 0 from where it is at `t`: from progress p this takes
    /// p·D / completionSpeed seconds along `curve`; see `finish(at:completionSpeed:curve:)`.
    /// - Throws: As `finish(at:completionSpeed:curve:)` does.
    public mutating func cancel(
        at t: Double,
        completionSpeed: Double = 1,
        curve: TimingFunction = .linear
    ) throws(ClockError) {
        try complete(to: 0, at: t, completionSpeed: completionSpeed, curve: curve)
    }

    private mutating func complete(
        to target: Double,
        at t: Double,
        completionSpeed: Double,
        curve: TimingFunction
    ) throws(ClockError) {
        guard completionSpeed.isFinite, completionSpeed > 0 else { throw .invalidCompletionSpeed(completionSpeed) }
        _ = try live(at: t)
        let from = progress(at: t)
        let length = abs(target - from) * duration / completionSpeed
        state =
            length == 0
            ? .ended(target == 1 ? .finished : .cancelled)
            : .completing(time: t, end: t + length, from: from, target: target, curve: curve)
    }

    /// The state as of `t`, failing if the transition has ended by then.
    private func live(at t: Double) throws(ClockError) -> State {
        let now = resolved(at: t)
        if now.phase.isEnded { throw .ended(now.phase) }
        return state
    }

    private func resolved(at t: Double) -> (progress: Double, phase: Phase) {
        switch state {
        case .moving(let time, let progress, let forward):
            let elapsed = max(0, t - time) / duration
            if forward {
                let p = progress + elapsed
                return p >= 1 ? (1, .finished) : (p, .running)
            }
            let p = progress - elapsed
            return p <= 0 ? (0, .cancelled) : (p, .reversing)
        case .paused(let progress):
            return (progress, .paused)
        case .completing(let time, let end, let from, let target, let curve):
            // Compared against the stored end time so the last frame lands exactly.
            if t >= end { return (target, target == 1 ? .finished : .cancelled) }
            let length = end - time
            let f = max(0, t - time) / length
            return (
                from + (target - from) * curve.value(at: f, duration: length), target == 1 ? .finishing : .cancelling
            )
        case .ended(let phase):
            return (phase == .finished ? 1 : 0, phase)
        }
    }
}
