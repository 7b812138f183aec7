/// A CSS / Core Animation cubic Bézier easing curve from (0,0) to (1,1).
///
/// The curve is solved for `t` given `x` in doubles (Newton's method, then bisection when Newton
/// stalls, as WebKit and Chromium do), and extended outside [0, 1] along the end tangents exactly
/// as CSS Easing Level 2 §"cubic Bézier easing functions" specifies.
public struct CubicBezier: Sendable, Hashable {
    /// First control point's input, within [0, 1].
    public let x1: Double
    /// First control point's output; outside [0, 1] the curve overshoots.
    public let y1: Double
    /// Second control point's input, within [0, 1].
    public let x2: Double
    /// Second control point's output; outside [0, 1] the curve overshoots.
    public let y2: Double

    // Polynomial coefficients: x(t) = ((ax·t + bx)·t + cx)·t, likewise y.
    private let ax, bx, cx, ay, by, cy: Double
    // Slopes of the straight lines used outside [0, 1].
    private let startGradient, endGradient: Double

    /// Accuracy to which `x(t)` is solved; the issue asks for 1e-7, we go further for free.
    static let epsilon = 1e-9

    /// Creates a curve. `x1` and `x2` must be within [0, 1] (use the parser for a checked entry
    /// point with an error message); the y values are unbounded.
    public init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        precondition((0...1).contains(x1) && (0...1).contains(x2), "cubic-bezier x values must be within [0, 1]")
        self.x1 = x1
        self.y1 = y1
        self.x2 = x2
        self.y2 = y2
        cx = 3 * x1
        bx = 3 * (x2 - x1) - cx
        ax = 1 - cx - bx
        cy = 3 * y1
        by = 3 * (y2 - y1) - cy
        ay = 1 - cy - by

        // Outside [0, 1] the curve continues along its end tangents (CSS Easing 2). The
        // tangent at P0 points to the first control point distinct from P0, the one at P3 to
        // the last distinct from P3; a vertical tangent cannot be extended, so the output stays
        // flat. This is the rule Chromium implements and the web-platform-tests expect; it
        // also covers the degenerate cubic-bezier(0, 0, 0, 0), a straight line of slope 1.
        func slope(from end: (Double, Double), towards points: [(Double, Double)]) -> Double {
            guard let p = points.first(where: { $0 != end }), p.0 != end.0 else { return 0 }
            return (p.1 - end.1) / (p.0 - end.0)
        }
        startGradient = slope(from: (0, 0), towards: [(x1, y1), (x2, y2), (1, 1)])
        endGradient = slope(from: (1, 1), towards: [(x2, y2), (x1, y1), (0, 0)])
    }

    /// The eased output for input progress `x`. Exactly 0 at 0 and exactly 1 at 1.
    @inlinable
    public func callAsFunction(_ x: Double) -> Double { value(at: x) }

    /// The eased output for input progress `x`, as calling the curve does.
    public func value(at x: Double) -> Double {
        if x <= 0 {
            return x == 0 ? 0 : startGradient * x
        }
        if x >= 1 {
            return x == 1 ? 1 : 1 + endGradient * (x - 1)
        }
        return sampleY(solveT(forX: x))
    }

    /// dy/dx at input progress `x` (used for velocity hand-off, e.g. when a spring takes over).
    public func slope(at x: Double) -> Double {
        if x < 0 { return startGradient }
        if x > 1 { return endGradient }
        let t = solveT(forX: x)
        let dx = sampleDX(t)
        let dy = (3 * ay * t + 2 * by) * t + cy
        if dx == 0 { return dy == 0 ? 0 : (dy > 0 ? .infinity : -.infinity) }
        return dy / dx
    }

    @inline(__always) private func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    @inline(__always) private func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    @inline(__always) private func sampleDX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// Finds t in [0, 1] with x(t) = x. x(t) is monotonic on [0, 1] because x1, x2 ∈ [0, 1].
    func solveT(forX x: Double) -> Double {
        // Newton from t = x converges in a few steps for all but near-flat curves.
        var t = x
        for _ in 0..<8 {
            let error = sampleX(t) - x
            if abs(error) < Self.epsilon { return t }
            let derivative = sampleDX(t)
            if abs(derivative) < 1e-6 { break }
            t -= error / derivative
        }
        // Bisection: always converges, since x(t) is monotonic.
        var low = 0.0
        var high = 1.0
        t = x
        while high - low > Self.epsilon * 0.5 {
            let value = sampleX(t)
            if abs(value - x) < Self.epsilon { return t }
            if value < x { low = t } else { high = t }
            t = (low + high) * 0.5
        }
        return t
    }
}

extension CubicBezier: CustomStringConvertible {
    /// The curve in CSS syntax, e.g. `cubic-bezier(0.25, 0.1, 0.25, 1)`, which the parser reads back.
    public var description: String {
        "cubic-bezier(\(formatNumber(x1)), \(formatNumber(y1)), \(formatNumber(x2)), \(formatNumber(y2)))"
    }
}

/// Shortest exact text for a number: "1" rather than "1.0", "0.25" stays "0.25".
func formatNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
