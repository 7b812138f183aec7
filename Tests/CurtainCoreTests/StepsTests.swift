import Testing

@testable import CurtainCore

/// Expected outputs follow CSS Easing Level 2 §"step easing functions" (the algorithm and its
/// figures); the before-flag cases are the ones the spec's note singles out.
@Suite struct StepsTests {
    @Test func jumpEndIsTheDefault() throws {
        #expect(try parse("steps(4)") == .steps(Steps(4, .end)))
        let f = Steps(4, .end)
        #expect([0, 0.24, 0.25, 0.5, 0.99, 1].map { f.value(at: $0) } == [0, 0, 0.25, 0.5, 0.75, 1])
    }

    @Test func jumpStart() {
        let f = Steps(4, .jumpStart)
        #expect([0, 0.24, 0.25, 0.75, 1].map { f.value(at: $0) } == [0.25, 0.25, 0.5, 1, 1])
    }

    @Test func jumpNone() {
        let f = Steps(3, .jumpNone)
        #expect([0, 0.3, 1.0 / 3 + 1e-12, 0.5, 0.7, 1].map { f.value(at: $0) } == [0, 0, 0.5, 0.5, 1, 1])
    }

    @Test func jumpBoth() {
        let f = Steps(2, .jumpBoth)
        #expect([0, 0.49, 0.5, 1].map { f.value(at: $0) } == [1.0 / 3, 1.0 / 3, 2.0 / 3, 1] as [Double])
    }

    /// The before flag matters only at a jump point reached from the before phase.
    @Test func beforeFlag() {
        #expect(Steps(1, .start).value(at: 0) == 1)
        #expect(Steps(1, .start).value(at: 0, before: true) == 0)
        #expect(Steps(2, .jumpBoth).value(at: 0, before: true) == 0)
        // Not merely negative input: without the flag, input < 0 still uses the algorithm.
        #expect(Steps(1, .start).value(at: -0.5) == 0)
        #expect(Steps(4, .jumpStart).value(at: -0.1) == 0)
        // A non-integral step position ignores the flag.
        #expect(Steps(4, .jumpStart).value(at: 0.1, before: true) == 0.25)
    }

    @Test func outsideZeroOne() {
        // Beyond 1 the output may exceed 1 only for input > 1 (step 6 of the algorithm).
        #expect(Steps(4, .jumpEnd).value(at: 1.5) == 1.5)
        #expect(Steps(4, .jumpStart).value(at: 1) == 1)
        #expect(Steps(4, .jumpEnd).value(at: -0.3) == -0.5)
    }

    @Test func keywords() throws {
        #expect(try parse("step-start") == .steps(Steps(1, .start)))
        #expect(try parse("step-end") == .steps(Steps(1, .end)))
        #expect(try parse("steps(1, start)").description == "step-start")
        #expect(try parse("steps(2, jump-both)").description == "steps(2, jump-both)")
    }

    @Test func errors() {
        #expect(parseError("steps(0)") == "steps(0): the step count must be at least 1")
        #expect(
            parseError("steps(1, jump-none)") == "steps(1, jump-none): the step count must be at least 2 with jump-none"
        )
        #expect(parseError("steps(2, middle)")?.hasPrefix("steps(2, middle): unknown step position 'middle'") == true)
        #expect(parseError("steps(1.5)") == "steps(1.5): the step count is not a number: '1.5'")
        #expect(parseError("steps()") == "steps(): steps() takes a step count and an optional position, got 0")
    }
}

@Suite struct LinearEasingTests {
    @Test func evenlySpacedStops() throws {
        let f = try parse("linear(0, 0.25, 1)")
        #expect(f.value(at: 0) == 0)
        #expect(f.value(at: 0.25) == 0.125)
        #expect(f.value(at: 0.5) == 0.25)
        #expect(f.value(at: 0.75) == 0.625)
        #expect(f.value(at: 1) == 1)
    }

    @Test func percentagesAndCanonicalisation() throws {
        // linear(0, 0.25 75%, 1): the middle stop sits at 75%.
        let f = try parse("linear(0, 0.25 75%, 1)")
        expectClose(f.value(at: 0.375), 0.125, 1e-15)
        expectClose(f.value(at: 0.875), 0.625, 1e-15)
        // Two percentages make a flat run; a later smaller input is raised to the largest so far.
        guard case .linearStops(let g) = try parse("linear(0, 0.5 20% 80%, 1 50%)") else {
            Issue.record("not linear()")
            return
        }
        #expect(g.points.map(\.input) == [0, 0.2, 0.8, 0.8])
        #expect(g.value(at: 0.5) == 0.5)
        // The last stop defaults to max(100%, largest input).
        guard case .linearStops(let h) = try parse("linear(0 120%, 1)") else {
            Issue.record("not linear()")
            return
        }
        #expect(h.points.map(\.input) == [1.2, 1.2])
    }

    @Test func extrapolatesFromTheEndSegments() throws {
        let f = try parse("linear(0, 1)")
        #expect(f.value(at: -0.5) == -0.5)
        #expect(f.value(at: 2) == 2)
    }

    @Test func errors() {
        #expect(parseError("linear(1)") == "linear(1): linear() takes at least 2 stops, got 1")
        #expect(parseError("linear(0, 1 2 3)") == "linear(0, 1 2 3): stop 2 has more than one output number")
        #expect(
            parseError("linear(0, 1 10% 20% 30%)") == "linear(0, 1 10% 20% 30%): stop 2 has more than two percentages"
        )
        #expect(parseError("linear(0, x)") == "linear(0, x): stop 2's output is not a number: 'x'")
    }
}
