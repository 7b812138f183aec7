/// One property of one layer, animated: from/to or keyframes, under Core Animation's timing
/// model (`CAMediaTiming`): beginTime, duration, speed, repeatCount, autoreverses, fillMode.
public struct Animation: Sendable, Hashable {
    /// What the animation moves between.
    public enum Content: Sendable, Hashable {
        /// Interpolates between two values of one kind (extrapolates when the easing overshoots).
        case basic(from: Value, to: Value)
        /// Values at key times (`CAKeyframeAnimation`); the easing applies to the whole track.
        case keyframes(KeyframeTrack)
    }

    /// What the animation shows outside its active interval (`CAMediaTimingFillMode`).
    public enum FillMode: String, Sendable, Hashable, CaseIterable, Codable {
        case removed, forwards, backwards, both
        var fillsBackwards: Bool { self == .backwards || self == .both }
        var fillsForwards: Bool { self == .forwards || self == .both }
    }

    /// From/to values or a keyframe track.
    public var content: Content
    /// The easing of the whole animation (of each segment's progress for from/to).
    public var timing: TimingFunction
    /// Simple duration in seconds (one pass, before repeats and autoreverse).
    public var duration: Double
    /// Start, in seconds of the enclosing group's time (seed 000's `delay`).
    public var beginTime: Double
    /// What shows before and after the active interval.
    public var fill: FillMode
    /// Passes to play; fractional counts stop part-way, `.infinity` never stops.
    public var repeatCount: Double
    /// Each pass plays forward, then back, which doubles its length.
    public var autoreverses: Bool
    /// Time scale: local time is (t − beginTime) × speed; greater than 0.
    public var speed: Double

    /// Core Animation's timing model as given. `duration` ≥ 0, `speed` > 0 and `repeatCount` ≥ 0
    /// are preconditions (the timeline compiler reports violations in documents); a `repeatCount`
    /// of 0 means one pass, as in Core Animation.
    public init(
        content: Content,
        timing: TimingFunction = .linear,
        duration: Double,
        beginTime: Double = 0,
        fill: FillMode = .removed,
        repeatCount: Double = 1,
        autoreverses: Bool = false,
        speed: Double = 1
    ) {
        precondition(duration >= 0 && speed > 0 && repeatCount >= 0)
        self.content = content
        self.timing = timing
        self.duration = duration
        self.beginTime = beginTime
        self.fill = fill
        self.repeatCount = repeatCount == 0 ? 1 : repeatCount
        self.autoreverses = autoreverses
        self.speed = speed
    }

    /// Length of the active interval in group seconds.
    public var activeDuration: Double {
        duration * (autoreverses ? 2 : 1) * repeatCount / speed
    }

    /// When the animation stops changing, in group seconds (∞ if it repeats for ever).
    public var endTime: Double { beginTime + activeDuration }

    /// The animated value at group time `t`, or nil when the animation shows nothing then
    /// (outside its active interval without a fill): the layer's model value shows instead.
    @inlinable
    public func value(at t: Double) -> Value? {
        guard let (progress, before) = progress(at: t) else { return nil }
        return value(atProgress: progress, before: before)
    }

    /// Simple progress in [0, 1] at group time `t` and whether the CSS before flag is set.
    public func progress(at t: Double) -> (Double, Bool)? {
        let local = (t - beginTime) * speed
        let iteration = duration * (autoreverses ? 2 : 1)
        let active = iteration * repeatCount
        if local < 0 {
            // Before phase: the before flag is set (CSS Easing 2, step easing functions).
            return fill.fillsBackwards ? (0, true) : nil
        }
        if local >= active {
            guard fill.fillsForwards else { return nil }
            if iteration == 0 { return (1, false) }
            // Where the last (possibly partial) pass ended.
            let passes = active / iteration
            let fraction = passes - passes.rounded(.down)
            let within = fraction == 0 ? iteration : fraction * iteration
            return (simple(within), false)
        }
        let passIndex = (local / iteration).rounded(.down)
        return (simple(local - passIndex * iteration), false)
    }

    /// Folds time within one pass (forward, then back when autoreversing) onto progress.
    private func simple(_ within: Double) -> Double {
        guard duration > 0 else { return 1 }
        if autoreverses && within > duration { return max(0, (2 * duration - within) / duration) }
        return min(1, within / duration)
    }

    /// The value at simple progress `progress`: eases it with `timing`, then interpolates the
    /// content. `before` is the CSS before flag, which only `steps` timing reads.
    @inlinable
    public func value(atProgress progress: Double, before: Bool = false) -> Value {
        let eased = timing.value(at: progress, before: before, duration: duration)
        switch content {
        case .basic(let from, let to): return Value.interpolate(from, to, eased)
        case .keyframes(let track): return track.value(at: eased, before: before)
        }
    }

    /// The value shown at the start (used as the model value when none is declared).
    public var startValue: Value {
        switch content {
        case .basic(let from, _): from
        case .keyframes(let track): track.values[0]
        }
    }
}
