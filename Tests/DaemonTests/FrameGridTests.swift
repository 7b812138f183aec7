import Testing

@testable import CurtainDaemon

@Suite struct FrameGridTests {
    let grid = FrameGrid(fps: 60)

    @Test func framesAreOnAbsoluteDeadlines() {
        #expect(grid.frame(at: 0) == 0)
        #expect(grid.frame(at: grid.time(of: 7)) == 7)  // waking exactly on a deadline
        #expect(grid.frame(at: grid.time(of: 7) - 1e-6) == 6)
        #expect(grid.nextDeadline(after: 6, from: 0.1) == grid.time(of: 7))
        // nothing shown yet: the current one, now
        #expect(grid.nextDeadline(after: nil, from: 0.1) == grid.time(of: 6))
    }

    /// A transition or a launch that starts between deadlines gets its first frame at the next
    /// deadline, never at the one before it (the audit's 4.4667 for a reveal begun at 4.4755).
    @Test func theFirstFrameIsNeverStampedBeforeItsStart() {
        let start = 4.4755
        let first = grid.due(at: start, after: nil, notBefore: start)!
        #expect(grid.time(of: first) >= start && grid.time(of: first) - start < 1.0 / 60)
        #expect(first == 269)
        // Also after a still frame shown long before (the hold).
        #expect(grid.due(at: start, after: 100, notBefore: start) == 269)
        // Once frame 269 is out, the loop wakes at its deadline: nothing new until 270.
        #expect(grid.due(at: grid.time(of: 269), after: 269, notBefore: start) == nil)
        // a hair late: still 270
        #expect(grid.due(at: grid.time(of: 270) + 0.0003, after: 269, notBefore: start) == 270)
        // A start exactly on a deadline keeps that deadline; an old start changes nothing.
        #expect(grid.due(at: grid.time(of: 270), after: 100, notBefore: grid.time(of: 270)) == 270)
        #expect(grid.due(at: grid.time(of: 14) + 0.5 / 60, after: 10, notBefore: 0) == 14)
    }

    @Test func anOverrunSkipsToTheCurrentFrameAndNeverBursts() {
        // Frame 10 was the last; the loop wakes 4.5 periods late.
        let late = grid.time(of: 14) + 0.5 / 60
        #expect(grid.due(at: late, after: 10) == 14)
        #expect(grid.due(at: late, after: 14) == nil)  // one frame per deadline, not five
        #expect(grid.due(at: grid.time(of: 10), after: 10) == nil)
    }

    @Test func otherRates() {
        let fast = FrameGrid(fps: 120)
        #expect(fast.frame(at: 1) == 120)
        #expect(
            fast.time(of: 121) - fast.time(of: 120) == 1.0 / 120
                || abs(fast.time(of: 121) - fast.time(of: 120) - 1.0 / 120) < 1e-12
        )
    }
}
