import Testing

@testable import CurtainCore

@Suite struct KeyframeTests {
    let three: [Value] = [.scalar(0), .scalar(10), .scalar(40)]

    @Test func linearWithKeyTimes() throws {
        let track = try KeyframeTrack(values: three, keyTimes: [0, 0.2, 1])
        #expect(track.value(at: 0) == .scalar(0))
        expectClose(track.value(at: 0.1).scalarValue!, 5, 1e-12)
        #expect(track.value(at: 0.2) == .scalar(10))
        expectClose(track.value(at: 0.6).scalarValue!, 25, 1e-12)
        #expect(track.value(at: 1) == .scalar(40))
    }

    @Test func defaultKeyTimesAreEven() throws {
        #expect(try KeyframeTrack(values: three).keyTimes == [0, 0.5, 1])
        #expect(try KeyframeTrack(values: three, mode: .discrete).keyTimes == [0, 1.0 / 3, 2.0 / 3])
    }

    @Test func perSegmentTimingFunctions() throws {
        let track = try KeyframeTrack(values: three, keyTimes: [0, 0.5, 1], timingFunctions: [.easeIn, .linear])
        let eased = TimingFunction.easeIn.value(at: 0.5)
        expectClose(track.value(at: 0.25).scalarValue!, 10 * eased, 1e-12)
        expectClose(track.value(at: 0.75).scalarValue!, 25, 1e-12)
    }

    @Test func discrete() throws {
        let track = try KeyframeTrack(values: three, keyTimes: [0, 0.5, 0.9, 1], mode: .discrete)
        #expect(
            [0, 0.49, 0.5, 0.89, 0.9, 1].map { track.value(at: $0) } == [
                .scalar(0), .scalar(0), .scalar(10), .scalar(10), .scalar(40), .scalar(40),
            ]
        )
    }

    /// Paced: equal distance per unit time, whatever the spacing of the values.
    @Test func paced() throws {
        let track = try KeyframeTrack(
            values: [.point(x: 0, y: 0), .point(x: 30, y: 40), .point(x: 30, y: 50)],
            mode: .paced
        )
        #expect(track.keyTimes == [0, 50.0 / 60, 1])
        #expect(track.value(at: 0.5) == .point(x: 18, y: 24))
    }

    /// Cubic passes through every value and is smooth (Catmull-Rom) between them.
    @Test func cubic() throws {
        let track = try KeyframeTrack(values: [.scalar(0), .scalar(1), .scalar(0), .scalar(1)], mode: .cubic)
        for (i, t) in track.keyTimes.enumerated() {
            expectClose(track.value(at: t).scalarValue!, [0, 1, 0, 1][i], 1e-12)
        }
        // Catmull-Rom with doubled ends: first segment midpoint = (0 + 1)/2 + (m0 − m1)/8 with m0 = 0.5, m1 = 0.
        expectClose(track.value(at: 1.0 / 6).scalarValue!, 0.5 + 0.5 / 8, 1e-12)
    }

    @Test func coreAnimationRules() {
        func error(_ body: () throws(TimelineError) -> KeyframeTrack) -> String? {
            do {
                _ = try body()
                return nil
            } catch { return error.description }
        }
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: []) }
                == "keyframes.values: must hold at least one value"
        )
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: three, keyTimes: [0, 1]) }
                == "keyframes.keyTimes: has 2 entries; linear mode with 3 values needs 3"
        )
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: three, keyTimes: [0, 0.6, 0.5]) }
                == "keyframes.keyTimes[2]: 0.5 is less than the key time before it (0.6); key times must not decrease"
        )
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: three, keyTimes: [0.1, 0.5, 1]) }
                == "keyframes.keyTimes: must start at 0 and end at 1"
        )
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: three, keyTimes: [0, 0.5, 1.5]) }
                == "keyframes.keyTimes[2]: 1.5 is not within [0, 1]"
        )
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: three, timingFunctions: [.linear]) }
                == "keyframes.timingFunctions: has 1 entries; 3 values make 2 segments, one function each"
        )
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: three, keyTimes: [0, 0.5, 1], mode: .paced) }
                == "keyframes.keyTimes: are ignored in paced mode; remove them"
        )
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: [.scalar(0), .point(x: 0, y: 0)]) }
                == "keyframes.values[1]: is a point, but values[0] is a scalar"
        )
        #expect(
            error { () throws(TimelineError) in
                try KeyframeTrack(values: three, keyTimes: [0, 0.5, 0.7, 1], mode: .discrete)
            } == nil
        )
        let atLimit = [Value](repeating: .scalar(0), count: KeyframeTrack.maximumValues)
        #expect(error { () throws(TimelineError) in try KeyframeTrack(values: atLimit) } == nil)
        #expect(
            error { () throws(TimelineError) in try KeyframeTrack(values: atLimit + [.scalar(0)]) }
                == "keyframes.values: holds 1025 values, more than the limit of 1024"
        )
    }
}

@Suite struct AnimationTimingTests {
    func basic(
        _ fill: Animation.FillMode = .removed,
        begin: Double = 0,
        repeatCount: Double = 1,
        autoreverses: Bool = false,
        speed: Double = 1,
        timing: TimingFunction = .linear
    ) -> Animation {
        Animation(
            content: .basic(from: .scalar(0), to: .scalar(1)),
            timing: timing,
            duration: 2,
            beginTime: begin,
            fill: fill,
            repeatCount: repeatCount,
            autoreverses: autoreverses,
            speed: speed
        )
    }

    @Test func fillModes() {
        #expect(basic(.removed, begin: 1).value(at: 0.5) == nil)
        #expect(basic(.backwards, begin: 1).value(at: 0.5) == .scalar(0))
        #expect(basic(.removed).value(at: 2) == nil)
        #expect(basic(.forwards).value(at: 5) == .scalar(1))
        #expect(basic(.both, begin: 1).value(at: 0) == .scalar(0))
        #expect(basic(.both, begin: 1).value(at: 3.5) == .scalar(1))
        #expect(basic(.removed, begin: 1).value(at: 2) == .scalar(0.5))
    }

    @Test func repeatAndAutoreverse() {
        let a = basic(.forwards, repeatCount: 2, autoreverses: true)
        #expect(a.activeDuration == 8)
        #expect(a.value(at: 1) == .scalar(0.5))
        #expect(a.value(at: 3) == .scalar(0.5))  // coming back
        #expect(a.value(at: 4.5) == .scalar(0.25))
        #expect(a.value(at: 9) == .scalar(0))  // ends where a reversing pass ends
        let partial = basic(.forwards, repeatCount: 1.5)
        #expect(partial.value(at: 10) == .scalar(0.5))
        #expect(basic(repeatCount: .infinity).endTime == .infinity)
    }

    @Test func speed() {
        let a = basic(.forwards, begin: 1, speed: 2)
        #expect(a.activeDuration == 1)
        #expect(a.value(at: 1.5) == .scalar(0.5))
    }

    /// The before flag reaches steps() only in the before phase (CSS Easing 2).
    @Test func beforeFlagOnlyInBeforePhase() {
        let a = basic(.both, begin: 1, timing: .steps(Steps(1, .start)))
        #expect(a.value(at: 0.5) == .scalar(0))  // before phase, flag set
        #expect(a.value(at: 1) == .scalar(1))  // active phase at progress 0, flag clear
    }
}

@Suite struct InteractiveClockTests {
    @Test func runsAndFinishes() {
        let clock = InteractiveClock(duration: 2, startingAt: 10)
        #expect(clock.progress(at: 11) == 0.5)
        #expect(clock.phase(at: 11) == .running)
        #expect(clock.progress(at: 12) == 1)
        #expect(clock.phase(at: 12) == .finished)
    }

    @Test func pauseSeekResume() throws {
        var clock = InteractiveClock(duration: 2, startingAt: 0)
        try clock.pause(at: 0.5)
        #expect(clock.progress(at: 100) == 0.25)
        try clock.seek(to: 0.8, at: 100)
        #expect(clock.phase(at: 101) == .paused)
        try clock.resume(at: 101)
        expectClose(clock.progress(at: 101.2), 0.9, 1e-12)
    }

    /// Finishing from p takes (1 − p)·D / speed; cancelling takes p·D / speed; ends are exact.
    @Test func finishAndCancelDurations() throws {
        var finishing = InteractiveClock(duration: 2, startingAt: 0)
        try finishing.pause(at: 0.6)  // p = 0.3
        try finishing.finish(at: 1, completionSpeed: 2, curve: .easeOut)
        let end = 1 + 0.7 * 2 / 2
        #expect(finishing.phase(at: end - 1e-9) == .finishing)
        #expect(finishing.progress(at: end) == 1)
        #expect(finishing.phase(at: end) == .finished)
        expectClose(finishing.progress(at: 1 + 0.35), 0.3 + 0.7 * TimingFunction.easeOut.value(at: 0.5), 1e-12)

        var cancelling = InteractiveClock(duration: 2, startingAt: 0)
        try cancelling.cancel(at: 0.6, completionSpeed: 0.5)
        let back = 0.6 + 0.3 * 2 / 0.5
        #expect(cancelling.phase(at: back - 1e-9) == .cancelling)
        #expect(cancelling.progress(at: back) == 0)
        #expect(cancelling.phase(at: back) == .cancelled)
    }

    @Test func reverseReachingZeroCancels() throws {
        var clock = InteractiveClock(duration: 1, startingAt: 0)
        try clock.reverse(at: 0.4)
        expectClose(clock.progress(at: 0.5), 0.3, 1e-12)
        #expect(clock.phase(at: 0.5) == .reversing)
        #expect(clock.phase(at: 0.8) == .cancelled)
        #expect(clock.progress(at: 0.8) == 0)
    }

    @Test func errors() throws {
        var clock = InteractiveClock(duration: 1, startingAt: 0)
        #expect(throws: InteractiveClock.ClockError.progressOutOfRange(1.5)) { try clock.seek(to: 1.5, at: 0) }
        #expect(throws: InteractiveClock.ClockError.invalidCompletionSpeed(0)) {
            try clock.finish(at: 0, completionSpeed: 0)
        }
        #expect(throws: InteractiveClock.ClockError.ended(.finished)) { try clock.pause(at: 5) }
        #expect(clock.progress(at: 5) == 1)  // the failed calls changed nothing
    }
}
