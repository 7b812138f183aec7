import Testing

@testable import CurtainCore

@Suite struct CubicBezierTests {
    /// Reference: solve x(t) = x by 200 bisection steps, independent of the Newton solver.
    static func reference(_ c: CubicBezier, _ x: Double) -> Double {
        func bez(_ p1: Double, _ p2: Double, _ t: Double) -> Double {
            3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t
        }
        var lo = 0.0
        var hi = 1.0
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if bez(c.x1, c.x2, mid) < x { lo = mid } else { hi = mid }
        }
        return bez(c.y1, c.y2, (lo + hi) / 2)
    }

    static let curves: [CubicBezier] = [
        CubicBezier(0.25, 0.1, 0.25, 1), CubicBezier(0.42, 0, 1, 1), CubicBezier(0, 0, 0.58, 1),
        CubicBezier(0.42, 0, 0.58, 1), CubicBezier(0, 1.5, 1, -0.5), CubicBezier(1, 0, 0, 1),
        CubicBezier(0.68, -0.55, 0.265, 1.55), CubicBezier(0, 0, 0, 0), CubicBezier(1, 1, 1, 1),
    ]

    /// cubic-bezier(1, 0, 0, 1) is left out here: x′(0.5) = 0 there, so y(x) is too steep at
    /// x = 0.5 for any double-precision reference to pin down; `residualWithin1e7` covers it.
    @Test(arguments: curves.filter { $0 != CubicBezier(1, 0, 0, 1) })
    func matchesBisectionWithin1e7(curve: CubicBezier) {
        for i in 0...1000 {
            let x = Double(i) / 1000
            expectClose(curve.value(at: x), Self.reference(curve, x), 1e-7, "\(curve) at \(x)")
        }
    }

    @Test(arguments: curves)
    func residualWithin1e7(curve: CubicBezier) {
        for i in 0...10000 {
            let x = Double(i) / 10000
            let t = curve.solveT(forX: x)
            let xt = 3 * (1 - t) * (1 - t) * t * curve.x1 + 3 * (1 - t) * t * t * curve.x2 + t * t * t
            expectClose(xt, x, 1e-7, "\(curve) at \(x)")
        }
    }

    @Test(arguments: curves)
    func endsAreExact(curve: CubicBezier) {
        #expect(curve.value(at: 0) == 0)
        #expect(curve.value(at: 1) == 1)
    }

    /// CSS Easing 2: outside [0, 1] the curve follows the tangent at the nearer end.
    @Test func extrapolation() {
        // ease: P1 = (0.25, 0.1) → slope 0.4 below 0; P2 = (0.25, 1) → slope 0 above 1.
        let ease = CubicBezier(0.25, 0.1, 0.25, 1)
        expectClose(ease.value(at: -0.5), -0.2, 1e-15)
        #expect(ease.value(at: 1.5) == 1)
        // x1 = 0: use P2 for the start tangent. ease-out (0, 0, 0.58, 1): P2.y/P2.x = 1/0.58.
        expectClose(CubicBezier(0, 0, 0.58, 1).value(at: -1), -1 / 0.58, 1e-12)
        // x1 = x2 = 0: flat at 0 below the range; x1 = x2 = 1: flat at 1 above it.
        #expect(CubicBezier(0, 0.5, 0, 1).value(at: -3) == 0)
        #expect(CubicBezier(1, 0, 1, 0.5).value(at: 3) == 1)
        // ease-in (0.42, 0, 1, 1): x2 = 1 so the end tangent goes through P1: (0 − 1)/(0.42 − 1).
        expectClose(CubicBezier(0.42, 0, 1, 1).value(at: 1.5), 1 + 0.5 / 0.58, 1e-12)
    }

    @Test func namedCurves() throws {
        #expect(try parse("ease") == .cubicBezier(CubicBezier(0.25, 0.1, 0.25, 1)))
        #expect(try parse("ease-in") == .cubicBezier(CubicBezier(0.42, 0, 1, 1)))
        #expect(try parse("ease-out") == .cubicBezier(CubicBezier(0, 0, 0.58, 1)))
        #expect(try parse("ease-in-out") == .cubicBezier(CubicBezier(0.42, 0, 0.58, 1)))
        #expect(try parse("easeIn") == .cubicBezier(CubicBezier(0.42, 0, 1, 1)))
        #expect(try parse("easeOut") == .cubicBezier(CubicBezier(0, 0, 0.58, 1)))
        #expect(try parse("easeInEaseOut") == .cubicBezier(CubicBezier(0.42, 0, 0.58, 1)))
        #expect(try parse("default") == .cubicBezier(CubicBezier(0.25, 0.1, 0.25, 1)))
        #expect(try parse("linear") == .linear)
        // Symmetric curves pass through (0.5, 0.5).
        expectClose(try parse("ease-in-out").value(at: 0.5), 0.5, 1e-12)
    }

    @Test func parsing() throws {
        #expect(try parse("  cubic-bezier( 0.1 , -2 ,0.9, 3e0 ) ") == .cubicBezier(CubicBezier(0.1, -2, 0.9, 3)))
        #expect(try parse("cubic-bezier(0.1, 0.7, 1.0, 0.1)").description == "cubic-bezier(0.1, 0.7, 1, 0.1)")
    }

    @Test func errors() {
        #expect(parseError("cubic-bezier(1.2, 0, 0, 1)") == "cubic-bezier(1.2, 0, 0, 1): x1 must be within [0, 1]")
        #expect(parseError("cubic-bezier(0, 0, -0.1, 1)") == "cubic-bezier(0, 0, -0.1, 1): x2 must be within [0, 1]")
        #expect(parseError("cubic-bezier(0, 0, 1)") == "cubic-bezier(0, 0, 1): cubic-bezier() takes 4 numbers, got 3")
        #expect(parseError("cubic-bezier(0, nan, 1, 1)") == "cubic-bezier(0, nan, 1, 1): y1 is not a number: 'nan'")
        #expect(parseError("cubic-bezier(0, 0x1, 1, 1)") == "cubic-bezier(0, 0x1, 1, 1): y1 is not a number: '0x1'")
        #expect(parseError("cubic-bezier(0, 0, 1, 1") == "cubic-bezier(0, 0, 1, 1: missing ')' at the end")
        #expect(
            parseError("bounce")
                == "bounce: unknown timing function 'bounce' (known: linear, ease, ease-in, ease-out, ease-in-out, easeIn, easeOut, easeInEaseOut, default, step-start, step-end, cubic-bezier(), steps(), linear(), spring())"
        )
        #expect(parseError("") == ": empty timing function")
        #expect(parseError("spring(1 100 10)")?.contains("spring() takes 4 space-separated numbers") == true)
        #expect(parseError("spring(0 100 10 0)") == "spring(0 100 10 0): mass must be greater than 0")
        #expect(parseError("spring(1 100 -1 0)") == "spring(1 100 -1 0): damping must be at least 0")
    }

    @Test func lengthLimitIsExact() {
        let padding = String(repeating: " ", count: TimingFunction.maximumTextLength - "linear".count)
        #expect(parseError("linear" + padding) == nil)  // trimmed, so well under
        let long =
            "cubic-bezier(0, 0, 1, 1" + String(repeating: " ", count: TimingFunction.maximumTextLength - 23) + ")"
        #expect(long.utf8.count == TimingFunction.maximumTextLength + 1)
        #expect(parseError(long)?.hasSuffix("longer than 4096 bytes") == true)
        let exact =
            "cubic-bezier(0, 0, 1, 1" + String(repeating: " ", count: TimingFunction.maximumTextLength - 24) + ")"
        #expect(exact.utf8.count == TimingFunction.maximumTextLength)
        #expect(parseError(exact) == nil)
    }
}
