import Testing

@testable import VarlinkNIO

/// When a burst of connections has drained (curtaind trims its heap then, issue 18): once at
/// least `burst` connections were open together and the count fell to a quarter of that peak.
@Suite struct ConnectionLimiterTests {
    /// Opens `count` connections of one user and closes them all; at which count (open after
    /// the close) `release` said the burst drained.
    func drainedAt(burstOf count: Int) -> [Int] {
        let limiter = ConnectionLimiter(maximumTotal: 4096, maximumPerUID: 4096)
        for _ in 0..<count { #expect(limiter.acquire(uid: 0) == nil) }
        return (0..<count).reversed().filter { _ in limiter.release(uid: 0) }
    }

    @Test func aBurstDrainsAtAQuarterOfItsPeak() {
        // At the burst size: drained once, at a quarter of it (8 open is no burst any more).
        #expect(drainedAt(burstOf: ConnectionLimiter.burst) == [ConnectionLimiter.burst / 4])
        // Larger: at a quarter (50 of 200), and again at a quarter of that (12).
        #expect(drainedAt(burstOf: 200) == [50, 12])
    }

    @Test func oneConnectionShortOfABurstNeverDrains() {
        #expect(drainedAt(burstOf: ConnectionLimiter.burst - 1) == [])
    }
}
