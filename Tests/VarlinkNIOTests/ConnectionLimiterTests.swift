import Testing

@testable import VarlinkNIO

/// When a burst of connections has drained (curtaind trims its heap then, issue 18): once at
/// least `burst` connections were open together and the count fell to a quarter of that peak,
/// then at each fall to a quarter of the last, down to none.
@Suite struct ConnectionLimiterTests {
    /// Opens `count` connections of one user and closes them all; at which count (open after
    /// the close) `release` said the burst drained.
    func drainedAt(burstOf count: Int) -> [Int] {
        let limiter = ConnectionLimiter(maximumTotal: 4096, maximumPerUID: 4096)
        for _ in 0..<count { #expect(limiter.acquire(uid: 0) == nil) }
        return (0..<count).reversed().filter { _ in limiter.release(uid: 0) }
    }

    @Test func aBurstDrainsAtAQuarterOfItsPeak() {
        // At the burst size: at a quarter of it (8), then 2, then none.
        #expect(drainedAt(burstOf: ConnectionLimiter.burst) == [ConnectionLimiter.burst / 4, 2, 0])
        // Larger: at a quarter (50 of 200), a quarter of that (12), 3, and none.
        #expect(drainedAt(burstOf: 200) == [50, 12, 3, 0])
    }

    @Test func aNewBurstWhileDrainingStartsOver() {
        let limiter = ConnectionLimiter(maximumTotal: 4096, maximumPerUID: 4096)
        for _ in 0..<100 { #expect(limiter.acquire(uid: 0) == nil) }
        let first = (0..<80).filter { _ in limiter.release(uid: 0) }.count  // 100 → 20: drained at 25
        #expect(first == 1)
        for _ in 0..<80 { #expect(limiter.acquire(uid: 0) == nil) }  // 20 → 100 again
        let second = (0..<100).reversed().filter { _ in limiter.release(uid: 0) }
        #expect(second == [25, 6, 1, 0])
    }

    @Test func oneConnectionShortOfABurstNeverDrains() {
        #expect(drainedAt(burstOf: ConnectionLimiter.burst - 1) == [])
    }
}
