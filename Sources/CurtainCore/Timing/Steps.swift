/// Where the jumps of a `steps()` easing happen (CSS Easing Level 2).
public enum StepPosition: String, Sendable, Hashable, CaseIterable {
    /// The first jump comes at the start: the output is already 1/count at input 0.
    case jumpStart = "jump-start"
    /// The last jump comes at the end: the output reaches 1 only when the input does (the default).
    case jumpEnd = "jump-end"
    /// No jump at either end: 0 and 1 are each held for a whole interval.
    case jumpNone = "jump-none"
    /// Jumps at both ends, so `count + 1` jumps in all.
    case jumpBoth = "jump-both"
    /// Legacy spellings; they behave as jump-start / jump-end but print as written.
    case start
    case end
}

/// `steps(n, position)`: a staircase of `count` intervals.
public struct Steps: Sendable, Hashable {
    /// Number of intervals the input is cut into.
    public let count: Int
    /// Where the jumps fall relative to the intervals.
    public let position: StepPosition

    /// `count` must be ≥ 1, and ≥ 2 for `jump-none` (the parser reports violations).
    public init(_ count: Int, _ position: StepPosition = .end) {
        precondition(count >= (position == .jumpNone ? 2 : 1), "invalid step count")
        self.count = count
        self.position = position
    }

    /// The algorithm of CSS Easing 2 §"step easing functions", word for word. `before` is the
    /// before flag: set only while the animation is in its before phase (see `Animation`).
    public func value(at input: Double, before: Bool = false) -> Double {
        let n = Double(count)
        var step = (input * n).rounded(.down)
        if position == .jumpStart || position == .jumpBoth || position == .start { step += 1 }
        if before, (input * n).truncatingRemainder(dividingBy: 1) == 0 { step -= 1 }
        if input >= 0, step < 0 { step = 0 }
        let jumps: Double =
            switch position {
            case .jumpBoth: n + 1
            case .jumpNone: n - 1
            default: n
            }
        if input <= 1, step > jumps { step = jumps }
        return step / jumps
    }
}

extension Steps: CustomStringConvertible {
    /// CSS syntax: `step-start` and `step-end` for their one-step forms, else `steps(n, position)`.
    public var description: String {
        switch (count, position) {
        case (1, .start): "step-start"
        case (1, .end): "step-end"
        default: "steps(\(count), \(position.rawValue))"
        }
    }
}
