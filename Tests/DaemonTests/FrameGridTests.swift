@testable import CurtainDaemon
import Testing

@Suite struct FrameGridTests {
    let grid = FrameGrid(fps: 60)

    @Test func framesAreOnAbsoluteDeadlines() {
        #expect(grid.frame(at: 0) == 0)
        #expect(grid.frame(at: grid.time(of: 7)) == 7)            // waking exactly on a deadline
        #expect(grid.frame(at: grid.time(of: 7) - 1e-6) == 6)
        #expect(grid.nextDeadline(after: 6, from: 0.1) == grid.time(of: 7))
        #expect(grid.nextDeadline(after: nil, from: 0.1) == grid.time(of: 6))   // nothing shown yet: the current one, now
    }

    @Test func anOverrunSkipsToTheCurrentFrameAndNeverBursts() {
        // Frame 10 was the last; the loop wakes 4.5 periods late.
        let late = grid.time(of: 14) + 0.5 / 60
        #expect(grid.due(at: late, after: 10) == 14)
        #expect(grid.due(at: late, after: 14) == nil)              // one frame per deadline, not five
        #expect(grid.due(at: grid.time(of: 10), after: 10) == nil)
    }

    @Test func otherRates() {
        let fast = FrameGrid(fps: 120)
        #expect(fast.frame(at: 1) == 120)
        #expect(fast.time(of: 121) - fast.time(of: 120) == 1.0 / 120 || abs(fast.time(of: 121) - fast.time(of: 120) - 1.0 / 120) < 1e-12)
    }
}
