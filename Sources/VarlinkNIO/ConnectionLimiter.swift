import Synchronization

/// Counts open connections, in total and per user, against their limits. Shared by the
/// accept path and every connection's close.
final class ConnectionLimiter: Sendable {
    private struct Counts {
        var total = 0
        var perUID: [UInt32: Int] = [:]
        /// Most connections open at once since the count last drained.
        var peak = 0
        /// A burst was seen, and its connections are not all gone yet.
        var draining = false
    }

    /// A burst: this many connections open at once at least. Once the count has fallen to a
    /// quarter of such a peak, the burst has drained (`release` says so, once), and again at
    /// each fall to a quarter of that, down to none: the stragglers (a client that never ends
    /// its message waits for its timeout) free what they held after the first drain.
    static let burst = 32

    let maximumTotal: Int
    let maximumPerUID: Int
    private let counts = Mutex(Counts())

    init(maximumTotal: Int, maximumPerUID: Int) {
        self.maximumTotal = maximumTotal
        self.maximumPerUID = maximumPerUID
    }

    enum Refusal: Equatable { case total, perUID }

    /// Takes a place for a connection of `uid`, or says which limit refused it.
    func acquire(uid: UInt32) -> Refusal? {
        counts.withLock { counts in
            if counts.total >= maximumTotal { return .total }
            if counts.perUID[uid, default: 0] >= maximumPerUID { return .perUID }
            counts.total += 1
            counts.perUID[uid, default: 0] += 1
            counts.peak = max(counts.peak, counts.total)
            return nil
        }
    }

    /// Gives back a connection's place; true when that drained a burst (see `burst`).
    @discardableResult
    func release(uid: UInt32) -> Bool {
        counts.withLock { counts in
            counts.total -= 1
            let remaining = counts.perUID[uid, default: 1] - 1
            counts.perUID[uid] = remaining == 0 ? nil : remaining
            if counts.peak >= Self.burst { counts.draining = true }
            guard counts.draining, counts.total * 4 <= counts.peak else { return false }
            counts.peak = counts.total
            if counts.total == 0 { counts.draining = false }
            return true
        }
    }

    var total: Int { counts.withLock { $0.total } }
}
