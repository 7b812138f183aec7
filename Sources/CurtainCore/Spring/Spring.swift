import RealModule

/// A damped harmonic oscillator that carries progress from 0 to 1, in closed form.
///
/// `m·x″ + c·x′ + k·x = 0` with `x = progress − 1`, `x(0) = −1` and `progress′(0) = initialVelocity`
/// (positive moves toward the target, as in Core Animation and WebKit). Under-, critically and
/// over-damped motion each use their exact solution; nothing is integrated step by step.
public struct Spring: Sendable, Hashable {
    /// The moving mass; a heavier spring is slower.
    public let mass: Double
    /// The spring constant k; a stiffer spring is faster.
    public let stiffness: Double
    /// The friction coefficient c; 0 oscillates for ever (and never settles).
    public let damping: Double
    /// In progress units per second: 1 means "the whole distance per second".
    public let initialVelocity: Double

    /// How the spring approaches its target, from `dampingRatio`: below 1 it oscillates around it
    /// with shrinking swings; at 1 (within 1e-9) and above it does not oscillate.
    public enum Regime: Sendable, Hashable { case underdamped, criticallyDamped, overdamped }

    private let solution: Solution

    /// Core Animation's parameters (`CASpringAnimation`). Mass and stiffness must be > 0 and
    /// damping ≥ 0; `SpringError` describes violations when parsed from text.
    public init(mass: Double = 1, stiffness: Double, damping: Double, initialVelocity: Double = 0) {
        precondition(mass > 0 && stiffness > 0 && damping >= 0, "invalid spring parameters")
        self.mass = mass
        self.stiffness = stiffness
        self.damping = damping
        self.initialVelocity = initialVelocity
        solution = Solution(mass: mass, stiffness: stiffness, damping: damping, velocity: initialVelocity)
    }

    /// SwiftUI's `spring(response:dampingFraction:)`: response is the period of the undamped
    /// oscillation; mass is 1, stiffness (2π/response)², damping 4π·fraction/response.
    public init(response: Double, dampingFraction: Double, initialVelocity: Double = 0) {
        precondition(response > 0 && dampingFraction >= 0, "invalid spring parameters")
        let omega = 2 * Double.pi / response
        self.init(
            mass: 1,
            stiffness: omega * omega,
            damping: 2 * dampingFraction * omega,
            initialVelocity: initialVelocity
        )
    }

    /// UIKit's `animate(withDuration:delay:usingSpringWithDamping:initialSpringVelocity:)`.
    ///
    /// UIKit does not publish how it turns a duration into stiffness. We choose the stiffness
    /// (mass 1) for which the spring settles to within `epsilon` exactly at `duration`, so the
    /// animation lasts what the caller asked for; an animation then ends at exactly 1.
    public init(
        duration: Double,
        dampingRatio: Double,
        initialVelocity: Double = 0,
        epsilon: Double = Spring.defaultEpsilon
    ) {
        precondition(duration > 0 && dampingRatio > 0, "invalid spring parameters")
        func settling(_ omega: Double) -> Double {
            Spring(
                mass: 1,
                stiffness: omega * omega,
                damping: 2 * dampingRatio * omega,
                initialVelocity: initialVelocity
            )
            .settlingDuration(epsilon: epsilon)
        }
        // Settling time falls as ω grows; bracket, then bisect in log space.
        var low = 1e-3
        var high = 1e4
        for _ in 0..<200 {
            let mid = (low * high).squareRoot()
            if settling(mid) > duration { low = mid } else { high = mid }
            if high / low < 1 + 1e-12 { break }
        }
        let omega = high
        self.init(
            mass: 1,
            stiffness: omega * omega,
            damping: 2 * dampingRatio * omega,
            initialVelocity: initialVelocity
        )
    }

    /// Settling band: settled means staying within 0.1 % of the distance from the target.
    public static let defaultEpsilon = 0.001

    /// ζ = c / (2·√(k·m)).
    public var dampingRatio: Double { damping / (2 * (stiffness * mass).squareRoot()) }
    /// ω₀ = √(k/m), in radians per second.
    public var naturalFrequency: Double { (stiffness / mass).squareRoot() }
    /// Which closed-form solution applies.
    public var regime: Regime { solution.regime }

    /// Progress at `time` seconds (0 at time 0; tends to 1).
    public func value(atTime time: Double) -> Double { 1 + solution.displacement(time) }

    /// d(progress)/dt at `time` seconds.
    public func velocity(atTime time: Double) -> Double { solution.velocity(time) }

    /// The time after which progress stays within `epsilon` of 1 for ever.
    ///
    /// Exact up to bisection tolerance: |x| is monotonic between consecutive extrema of x, and the
    /// extrema are known in closed form, so we find the last extremum above epsilon and bisect
    /// the crossing after it.
    public func settlingDuration(epsilon: Double = Spring.defaultEpsilon) -> Double {
        precondition(epsilon > 0)
        if damping == 0 { return .infinity }
        let x = solution.displacement
        // Candidates for local maxima of |x| are t = 0 and the extrema of x; between two
        // consecutive candidates x is monotonic, so |x| > ε holds on a prefix of the gap.
        var lastOutside: Double? = abs(x(0)) > epsilon ? 0 : nil
        var firstInsideAfter: Double? = nil
        var extremum = solution.firstExtremum(after: 0)
        while let t = extremum {
            if abs(x(t)) > epsilon {
                lastOutside = t
                firstInsideAfter = nil
            } else if firstInsideAfter == nil {
                firstInsideAfter = t
                // Underdamped extrema shrink geometrically: once inside, all later ones are.
                if regime == .underdamped { break }
            }
            extremum = solution.firstExtremum(after: t)
        }
        guard let low0 = lastOutside else { return 0 }
        var low = low0
        var high: Double
        if let inside = firstInsideAfter {
            high = inside
        } else {
            // No extremum after: |x| decays monotonically, so double until inside the band.
            high = max(low * 2, 1e-3)
            while abs(x(high)) > epsilon {
                low = high
                high *= 2
            }
        }
        for _ in 0..<200 where high - low > 1e-12 * max(1, high) {
            let mid = (low + high) / 2
            if abs(x(mid)) > epsilon { low = mid } else { high = mid }
        }
        return high
    }
}

extension Spring: CustomStringConvertible {
    /// WebKit's CSS syntax: `spring(mass stiffness damping initialVelocity)`.
    public var description: String {
        "spring(\(formatNumber(mass)) \(formatNumber(stiffness)) \(formatNumber(damping)) \(formatNumber(initialVelocity)))"
    }
}

/// The closed-form solution of x(t) for one set of parameters.
private struct Solution: Sendable, Hashable {
    let regime: Spring.Regime
    // underdamped: x = e^(−σt)(a·cos ωd t + b·sin ωd t)
    // critical:    x = e^(−σt)(a + b·t)
    // overdamped:  x = a·e^(r1 t) + b·e^(r2 t)
    let sigma, omegaD, r1, r2, a, b: Double

    init(mass: Double, stiffness: Double, damping: Double, velocity: Double) {
        let omega0 = (stiffness / mass).squareRoot()
        let zeta = damping / (2 * (stiffness * mass).squareRoot())
        let x0 = -1.0
        let v0 = velocity
        if abs(zeta - 1) < 1e-9 {
            regime = .criticallyDamped
            sigma = omega0
            omegaD = 0
            r1 = 0
            r2 = 0
            a = x0
            b = v0 + omega0 * x0
        } else if zeta < 1 {
            regime = .underdamped
            sigma = zeta * omega0
            omegaD = omega0 * (1 - zeta * zeta).squareRoot()
            r1 = 0
            r2 = 0
            a = x0
            b = (v0 + sigma * x0) / omegaD
        } else {
            regime = .overdamped
            let root = (zeta * zeta - 1).squareRoot()
            r1 = -omega0 * (zeta - root)
            r2 = -omega0 * (zeta + root)
            sigma = 0
            omegaD = 0
            b = (v0 - r1 * x0) / (r2 - r1)
            a = x0 - b
        }
    }

    func displacement(_ t: Double) -> Double {
        switch regime {
        case .underdamped: Double.exp(-sigma * t) * (a * Double.cos(omegaD * t) + b * Double.sin(omegaD * t))
        case .criticallyDamped: Double.exp(-sigma * t) * (a + b * t)
        case .overdamped: a * Double.exp(r1 * t) + b * Double.exp(r2 * t)
        }
    }

    func velocity(_ t: Double) -> Double {
        switch regime {
        case .underdamped:
            Double.exp(-sigma * t)
                * ((b * omegaD - sigma * a) * Double.cos(omegaD * t) - (a * omegaD + sigma * b) * Double.sin(omegaD * t))
        case .criticallyDamped:
            Double.exp(-sigma * t) * (b - sigma * (a + b * t))
        case .overdamped:
            a * r1 * Double.exp(r1 * t) + b * r2 * Double.exp(r2 * t)
        }
    }

    /// The first time t > `after` where x′(t) = 0, if any.
    func firstExtremum(after: Double) -> Double? {
        switch regime {
        case .underdamped:
            // x′ = 0 where tan(ωd t) = (b·ωd − σ·a) / (a·ωd + σ·b): one solution every π/ωd.
            let phase = Double.atan2(y: b * omegaD - sigma * a, x: a * omegaD + sigma * b)
            var k = ((after * omegaD - phase) / Double.pi).rounded(.down)
            var t = (phase + k * Double.pi) / omegaD
            while t <= after * (1 + 1e-12) + 1e-15 {
                k += 1
                t = (phase + k * Double.pi) / omegaD
            }
            return t
        case .criticallyDamped:
            guard b != 0 else { return nil }
            let t = (b - sigma * a) / (sigma * b)
            return t > after ? t : nil
        case .overdamped:
            guard a != 0 else { return nil }
            let ratio = -(b * r2) / (a * r1)
            guard ratio > 0 else { return nil }
            let t = Double.log(ratio) / (r1 - r2)
            return t > after && t.isFinite ? t : nil
        }
    }
}
