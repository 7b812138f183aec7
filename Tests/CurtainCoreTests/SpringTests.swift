import RealModule
import Testing

@testable import CurtainCore

/// The closed forms are checked against an independent numerical solution of the same ODE
/// (classic 4th-order Runge–Kutta with a 10 µs step), for each damping regime.
@Suite struct SpringTests {
    static func integrate(_ spring: Spring, until end: Double) -> (position: Double, velocity: Double) {
        var x = -1.0
        var v = spring.initialVelocity
        let h = 1e-5
        let m = spring.mass
        let k = spring.stiffness
        let c = spring.damping
        func a(_ x: Double, _ v: Double) -> Double { (-k * x - c * v) / m }
        var t = 0.0
        while t < end - h / 2 {
            let k1x = v
            let k1v = a(x, v)
            let k2x = v + h / 2 * k1v
            let k2v = a(x + h / 2 * k1x, v + h / 2 * k1v)
            let k3x = v + h / 2 * k2v
            let k3v = a(x + h / 2 * k2x, v + h / 2 * k2v)
            let k4x = v + h * k3v
            let k4v = a(x + h * k3x, v + h * k3v)
            x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
            t += h
        }
        return (1 + x, v)
    }

    @Test(arguments: [
        Spring(mass: 1, stiffness: 100, damping: 10, initialVelocity: 0),  // ζ = 0.5
        Spring(mass: 2, stiffness: 300, damping: 3, initialVelocity: 5),  // ζ ≈ 0.061, lively
        Spring(mass: 1, stiffness: 100, damping: 20, initialVelocity: 0),  // ζ = 1
        Spring(mass: 1, stiffness: 100, damping: 20, initialVelocity: -4),  // ζ = 1, starts away
        Spring(mass: 1, stiffness: 100, damping: 50, initialVelocity: 2),  // ζ = 2.5
    ])
    func closedFormMatchesIntegration(spring: Spring) {
        for t in [0.05, 0.2, 0.5, 1.3] {
            let numeric = Self.integrate(spring, until: t)
            expectClose(spring.value(atTime: t), numeric.position, 1e-8, "position at \(t)")
            expectClose(spring.velocity(atTime: t), numeric.velocity, 1e-6, "velocity at \(t)")
        }
    }

    @Test func regimes() {
        #expect(Spring(stiffness: 100, damping: 10).regime == .underdamped)
        #expect(Spring(stiffness: 100, damping: 20).regime == .criticallyDamped)
        #expect(Spring(stiffness: 100, damping: 21).regime == .overdamped)
        #expect(Spring(stiffness: 100, damping: 10).value(atTime: 0) == 0)
    }

    @Test(arguments: [
        Spring(stiffness: 100, damping: 10), Spring(stiffness: 170, damping: 26),
        Spring(stiffness: 100, damping: 20), Spring(stiffness: 100, damping: 60, initialVelocity: 3),
        Spring(mass: 3, stiffness: 40, damping: 2, initialVelocity: -2),
    ])
    func settlingDurationIsTheLastExitFromTheBand(spring: Spring) {
        let epsilon = 1e-3
        let settle = spring.settlingDuration(epsilon: epsilon)
        // Just before: outside the band; from then on (sampled densely for 5 more settle times): inside.
        #expect(abs(spring.value(atTime: settle - 1e-6) - 1) > epsilon)
        var t = settle
        while t < settle * 6 {
            #expect(abs(spring.value(atTime: t) - 1) <= epsilon * (1 + 1e-9), "left the band at \(t)")
            t += settle / 2000
        }
    }

    @Test func undampedSpringNeverSettles() {
        #expect(Spring(stiffness: 100, damping: 0).settlingDuration() == .infinity)
    }

    /// SwiftUI: stiffness = (2π/response)², damping = 4π·dampingFraction/response (mass 1).
    @Test func swiftUIParameters() {
        let spring = Spring(response: 0.5, dampingFraction: 0.825)
        expectClose(spring.stiffness, (2 * .pi / 0.5) * (2 * .pi / 0.5), 1e-9)
        expectClose(spring.damping, 4 * .pi * 0.825 / 0.5, 1e-9)
        expectClose(spring.dampingRatio, 0.825, 1e-12)
    }

    /// UIKit: seed 001 presents with damping 0.5; the spring must settle exactly at the duration.
    @Test(arguments: [(0.5, 0.5, 0.0), (0.35, 1.0, 0.0), (1.0, 0.3, 2.0)])
    func uiKitParameters(duration: Double, ratio: Double, velocity: Double) {
        let spring = Spring(duration: duration, dampingRatio: ratio, initialVelocity: velocity)
        expectClose(spring.dampingRatio, ratio, 1e-9)
        expectClose(spring.settlingDuration(), duration, 1e-6)
        expectClose(spring.velocity(atTime: 0), velocity, 1e-12)
    }

    @Test func timingFunctionLandsExactly() {
        let function = TimingFunction.spring(Spring(stiffness: 100, damping: 10))
        #expect(function.value(at: 1, duration: 0.8) == 1)
        #expect(function.value(at: 0, duration: 0.8) == 0)
        expectClose(function.value(at: 0.5, duration: 0.8), Spring(stiffness: 100, damping: 10).value(atTime: 0.4), 0)
    }
}
