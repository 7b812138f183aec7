import Testing

@testable import CurtainCore

/// Expected values that no one here wrote, each with its source.
@Suite struct ChromiumCubicBezierTests {
    // chromium/chromium ui/gfx/geometry/cubic_bezier_unittest.cc, TEST(CubicBezierTest, Basic):
    // CubicBezier(0.25, 0.0, 0.75, 1.0), EXPECT_NEAR with epsilon 0.00015.
    @Test func basic() {
        let f = CubicBezier(0.25, 0, 0.75, 1)
        let expected: [(Double, Double)] = [
            (0, 0), (0.05, 0.01136), (0.1, 0.03978), (0.15, 0.079780), (0.2, 0.12803), (0.25, 0.18235),
            (0.3, 0.24115), (0.35, 0.30323), (0.4, 0.36761), (0.45, 0.43345), (0.5, 0.5), (0.6, 0.63238),
            (0.65, 0.69676), (0.7, 0.75884), (0.75, 0.81764), (0.8, 0.87196), (0.85, 0.92021), (0.9, 0.96021),
            (0.95, 0.98863), (1, 1),
        ]
        for (x, y) in expected { expectClose(f.value(at: x), y, 0.00015, "x = \(x)") }
        // Same test, EXPECT_EQ (exact).
        #expect(CubicBezier(0.5, 1, 0.5, 1).value(at: 0.5) == 0.875)
        #expect(CubicBezier(0.5, 2, 0.5, 2).value(at: 0.5) == 1.625)
        #expect(CubicBezier(0.5, -1, 0.5, -1).value(at: 0.5) == -0.625)
    }

    // TEST(CubicBezierTest, UnclampedYValues): CubicBezier(0.5, -1.0, 0.5, 2.0), epsilon 0.00015.
    @Test func unclampedYValues() {
        let f = CubicBezier(0.5, -1, 0.5, 2)
        let expected: [(Double, Double)] = [
            (0, 0), (0.05, -0.08954), (0.1, -0.15613), (0.15, -0.19641), (0.2, -0.20651), (0.25, -0.18232),
            (0.3, -0.11992), (0.35, -0.01672), (0.4, 0.12660), (0.45, 0.30349), (0.5, 0.5), (0.55, 0.69651),
            (0.6, 0.87340), (0.65, 1.01672), (0.7, 1.11992), (0.75, 1.18232), (0.8, 1.20651), (0.85, 1.19641),
            (0.9, 1.15613), (0.95, 1.08954), (1, 1),
        ]
        for (x, y) in expected { expectClose(f.value(at: x), y, 0.00015, "x = \(x)") }
    }

    // TEST(CubicBezierTest, Slope): CubicBezier(0.25, 0.0, 0.75, 1.0), epsilon 0.00015.
    @Test func slope() {
        let f = CubicBezier(0.25, 0, 0.75, 1)
        let expected: [(Double, Double)] = [
            (-0.1, 0), (0, 0), (0.05, 0.42170), (0.1, 0.69778), (0.15, 0.89121), (0.2, 1.03184), (0.25, 1.13576),
            (0.3, 1.21239), (0.35, 1.26751), (0.4, 1.30474), (0.45, 1.32628), (0.5, 1.33333), (0.55, 1.32628),
            (0.6, 1.30474), (0.65, 1.26751), (0.7, 1.21239), (0.75, 1.13576), (0.8, 1.03184), (0.85, 0.89121),
            (0.9, 0.69778), (0.95, 0.42170), (1, 0), (1.1, 0),
        ]
        for (x, s) in expected { expectClose(f.slope(at: x), s, 0.00015, "x = \(x)") }
    }

    // TEST(CubicBezierTest, InputOutOfRange): EXPECT_EQ (exact) outside [0, 1].
    @Test func inputOutOfRange() {
        let cases: [(CubicBezier, Double, Double)] = [
            (CubicBezier(0.5, 1, 0.5, 1), -2, 1),  // simple
            (CubicBezier(0, 0, 1, 1), -1, 2),  // coincident_endpoints
            (CubicBezier(0, 1, 1, 0), 0, 1),  // vertical_gradient
            (CubicBezier(0.5, 0, 1, 0.5), 0, 1),  // vertical_trailing_gradient
            (CubicBezier(0.1, 0.2, 0.8, 0.8), -2, 2),  // distinct_endpoints
            (CubicBezier(0, 0, 0.5, 1), -2, 1),  // coincident_leading_endpoint
            (CubicBezier(1, 0.5, 1, 1), -0.5, 1),  // coincident_trailing_endpoint
            (CubicBezier(0, 0, 0, 0), -1, 2),  // all_zeros (linear)
            (CubicBezier(1, 1, 1, 1), -1, 2),  // all_ones (linear)
        ]
        for (f, atMinusOne, atTwo) in cases {
            #expect(f.value(at: -1) == atMinusOne, "\(f) at -1")
            #expect(f.value(at: 2) == atTwo, "\(f) at 2")
        }
        #expect(CubicBezier(0.5, 1, 0.5, 1).value(at: 0) == 0)
        #expect(CubicBezier(0.5, 1, 0.5, 1).value(at: 1) == 1)
    }

    // TEST(CubicBezierTest, CommonEasingFunctions / ControlPointsOutsideUnitSquare): solving
    // x(t) for x = x(t) gives t back within 1e-5 (solver epsilon 1e-7).
    @Test(arguments: [
        CubicBezier(0.25, 0.1, 0.25, 1), CubicBezier(0.42, 0, 1, 1), CubicBezier(0, 0, 0.58, 1),
        CubicBezier(0.42, 0, 0.58, 1),
        CubicBezier(0, 0, 0, 0), CubicBezier(1, 1, 1, 1), CubicBezier(0.3, 1.5, 0.8, 1.5),
        CubicBezier(0.4, -0.8, 0.7, 1.7),
        CubicBezier(0.7, -2, 1, -1.5), CubicBezier(0, 4, 1, -3),
    ])
    func solverRecoversT(curve: CubicBezier) {
        var t = 0.0
        while t <= 1 {
            let x = 3 * (1 - t) * (1 - t) * t * curve.x1 + 3 * (1 - t) * t * t * curve.x2 + t * t * t
            expectClose(curve.solveT(forX: x), t, 1e-5, "\(curve) t = \(t)")
            t += 0.05
        }
    }
}

/// web-platform-tests css/css-easing/step-timing-functions-output.html: a two-keyframe
/// animation (0 → 100, keyframe easing E) over 1 s with fill forwards and an overall
/// cubic-bezier easing that leaves [0, 1]; the expected `left` in px at given times.
@Suite struct WPTStepTimingFunctionsOutputTests {
    func left(keyframeEasing: String, overall: String, at ms: Double) throws -> Double {
        let track = try KeyframeTrack(values: [.scalar(0), .scalar(100)], timingFunctions: [try parse(keyframeEasing)])
        let animation = Animation(content: .keyframes(track), timing: try parse(overall), duration: 1, fill: .forwards)
        return animation.value(at: ms / 1000)!.scalarValue!
    }

    @Test(
        arguments: [
            // (keyframe easing, overall easing, [(time ms, left px)]), in the file's order.
            ("step-start", "cubic-bezier(0, 1.5, 1, 1.5)", [(0.0, 100.0), (230, 100), (250, 200), (1000, 100)]),
            ("step-start", "cubic-bezier(0, 3, 1, 3)", [(0, 100), (114, 200), (500, 300), (900, 200)]),
            ("step-start", "cubic-bezier(0, -0.5, 1, -0.5)", [(0, 100), (750, 0), (800, 100), (1000, 100)]),
            ("step-start", "cubic-bezier(0, -2, 1, -2)", [(0, 100), (100, 0), (500, -100), (1000, 100)]),
            ("step-end", "cubic-bezier(0, 1.5, 1, 1.5)", [(0, 0), (230, 0), (250, 100), (1000, 100)]),
            ("step-end", "cubic-bezier(0, 3, 1, 3)", [(0, 0), (114, 100), (500, 200), (900, 100)]),
            ("step-end", "cubic-bezier(0, -0.5, 1, -0.5)", [(0, 0), (750, -100), (800, 0), (1000, 100)]),
            ("steps(1, jump-both)", "cubic-bezier(0, 1.5, 1, 1.5)", [(0, 50), (230, 50), (250, 100), (1000, 100)]),
            ("steps(1, jump-both)", "cubic-bezier(0, 3, 1, 3)", [(0, 50), (114, 100), (500, 150), (900, 100)]),
            ("steps(1, jump-both)", "cubic-bezier(0, -0.5, 1, -0.5)", [(0, 50), (750, 0), (800, 50), (1000, 100)]),
            (
                "steps(2, jump-none)", "cubic-bezier(0, 1.5, 1, 1.5)",
                [(0, 0), (45, 100), (230, 100), (250, 200), (1000, 100)]
            ),
            ("steps(2, jump-none)", "cubic-bezier(0, 3, 1, 3)", [(0, 0), (114, 300), (500, 400), (900, 300)]),
            ("steps(2, jump-none)", "cubic-bezier(0, -0.5, 1, -0.5)", [(0, 0), (750, -100), (800, 0), (1000, 100)]),
        ] as [(String, String, [(Double, Double)])]
    )
    func output(keyframeEasing: String, overall: String, samples: [(Double, Double)]) throws {
        for (ms, px) in samples {
            let value = try left(keyframeEasing: keyframeEasing, overall: overall, at: ms)
            #expect(
                abs(value - px) < 1e-9,
                "\(keyframeEasing) under \(overall) at \(ms) ms: \(value) px, expected \(px) px"
            )
        }
    }
}

/// web-platform-tests css/css-easing/cubic-bezier-timing-functions-output.html: keyframe
/// cubic-bézier easings fed progress outside [0, 1] by an overshooting effect easing must
/// follow the end tangent — or stay at 0 or 1 where that tangent is vertical. Expected `left`
/// (px) is computed as the test computes it; tolerance 0.01 px as there.
@Suite struct WPTCubicBezierTimingFunctionsOutputTests {
    func left(keyframe: CubicBezier, effect: CubicBezier, at ms: Double) throws -> Double {
        let track = try KeyframeTrack(values: [.scalar(0), .scalar(100)], timingFunctions: [.cubicBezier(keyframe)])
        let animation = Animation(
            content: .keyframes(track),
            timing: .cubicBezier(effect),
            duration: 1,
            fill: .forwards
        )
        return animation.value(at: ms / 1000)!.scalarValue!
    }

    @Test func greaterThanOne() throws {
        let keyframe = CubicBezier(0.5, 1, 0.5, 0)
        let effect = CubicBezier(0, 1.5, 1, 1.5)
        // "p3x + (p2y - p3y) / (p2x - p3x) * (x - p3x)"
        let extrapolated = { (x: Double) in 1 + (0 - 1) / (0.5 - 1) * (x - 1) }
        for ms in [0.0, 230, 240, 700, 990, 1000] {
            let p = effect.value(at: ms / 1000)
            let expected = (p > 1 ? extrapolated(p) : keyframe.value(at: p)) * 100
            expectClose(try left(keyframe: keyframe, effect: effect, at: ms), expected, 0.01, "at \(ms) ms")
        }
        // Vertical tangent at the upper end: the value stays at 1.
        let vertical = CubicBezier(0, 1.5, 1, 1.5)
        for ms in [240.0, 700, 990] {
            expectClose(try left(keyframe: vertical, effect: vertical, at: ms), 100, 0.01, "at \(ms) ms")
        }
    }

    @Test func lessThanZero() throws {
        let keyframe = CubicBezier(0.5, 1, 0.5, 0)
        let effect = CubicBezier(0, -0.5, 1, -0.5)
        // "p0x + (p1y - p0y) / (p1x - p0x) * (x - p0x)"
        let extrapolated = { (x: Double) in (1 / 0.5) * x }
        for ms in [0.0, 10, 300, 750, 770, 1000] {
            let p = effect.value(at: ms / 1000)
            let expected = (p < 0 ? extrapolated(p) : keyframe.value(at: p)) * 100
            expectClose(try left(keyframe: keyframe, effect: effect, at: ms), expected, 0.01, "at \(ms) ms")
        }
        // Vertical tangent at the lower end: the value stays at 0.
        let vertical = CubicBezier(0, -0.5, 1, -0.5)
        for ms in [10.0, 300, 750] {
            expectClose(try left(keyframe: vertical, effect: vertical, at: ms), 0, 0.01, "at \(ms) ms")
        }
    }
}
