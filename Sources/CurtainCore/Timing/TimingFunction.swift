/// Maps input progress to output progress. Every easing Curtain knows: CSS Easing Level 2's
/// functions, Core Animation's named curves, and springs (WebKit's CSS `spring()`).
public enum TimingFunction: Sendable, Hashable {
    /// Output equals input.
    case linear
    case cubicBezier(CubicBezier)
    case steps(Steps)
    /// CSS `linear(…)`: straight lines between stops.
    case linearStops(LinearEasing)
    /// Progress is the spring's value at `progress × duration` seconds; 1 exactly from progress 1
    /// on, so an animation whose duration is the settling duration lands exactly.
    case spring(Spring)

    /// Output progress for `input`. `before` is the CSS before flag (only `steps` reads it);
    /// `duration` is the animation's simple duration in seconds (only `spring` reads it).
    @inlinable
    public func value(at input: Double, before: Bool = false, duration: Double = 1) -> Double {
        switch self {
        case .linear: input
        case .cubicBezier(let curve): curve.value(at: input)
        case .steps(let steps): steps.value(at: input, before: before)
        case .linearStops(let function): function.value(at: input)
        case .spring(let spring): input >= 1 ? 1 : spring.value(atTime: max(0, input) * duration)
        }
    }

    // Core Animation's named functions (CAMediaTimingFunction, values from Apple's documentation
    // of `init(name:)` and WebKit's PlatformCAAnimation).
    /// Core Animation's ease-in: starts slowly, ends at full speed (the curve of CSS `ease-in`).
    public static let easeIn = TimingFunction.cubicBezier(CubicBezier(0.42, 0, 1, 1))
    /// Core Animation's ease-out: starts at full speed, slows to the end (the curve of CSS `ease-out`).
    public static let easeOut = TimingFunction.cubicBezier(CubicBezier(0, 0, 0.58, 1))
    /// Core Animation's ease-in-ease-out: slow at both ends (the curve of CSS `ease-in-out`).
    public static let easeInEaseOut = TimingFunction.cubicBezier(CubicBezier(0.42, 0, 0.58, 1))
    /// `kCAMediaTimingFunctionDefault`, the curve of implicit layer animations.
    public static let caDefault = TimingFunction.cubicBezier(CubicBezier(0.25, 0.1, 0.25, 1))

    // CSS Easing Level 2 §2.3 keywords.
    /// CSS's default: a brisk start and a long gentle end (the curve of Core Animation's default).
    public static let ease = TimingFunction.cubicBezier(CubicBezier(0.25, 0.1, 0.25, 1))
    /// CSS `ease-in`, the same curve as `easeIn`.
    public static let cssEaseIn = TimingFunction.cubicBezier(CubicBezier(0.42, 0, 1, 1))
    /// CSS `ease-out`, the same curve as `easeOut`.
    public static let cssEaseOut = TimingFunction.cubicBezier(CubicBezier(0, 0, 0.58, 1))
    /// CSS `ease-in-out`, the same curve as `easeInEaseOut`.
    public static let cssEaseInOut = TimingFunction.cubicBezier(CubicBezier(0.42, 0, 0.58, 1))
    /// CSS `step-start`: the end value at once.
    public static let stepStart = TimingFunction.steps(Steps(1, .start))
    /// CSS `step-end`: the start value until the end.
    public static let stepEnd = TimingFunction.steps(Steps(1, .end))

    /// Names accepted wherever a timing function is written, with what they stand for.
    public static let named: [(name: String, function: TimingFunction)] = [
        ("linear", .linear),
        ("ease", .ease), ("ease-in", .cssEaseIn), ("ease-out", .cssEaseOut), ("ease-in-out", .cssEaseInOut),
        ("easeIn", .easeIn), ("easeOut", .easeOut), ("easeInEaseOut", .easeInEaseOut), ("default", .caDefault),
        ("step-start", .stepStart), ("step-end", .stepEnd),
    ]
}

extension TimingFunction: CustomStringConvertible {
    /// The function in the syntax `init(parsing:)` reads (named curves print as `cubic-bezier(…)`).
    public var description: String {
        switch self {
        case .linear: "linear"
        case .cubicBezier(let curve): curve.description
        case .steps(let steps): steps.description
        case .linearStops(let function): function.description
        case .spring(let spring): spring.description
        }
    }
}
