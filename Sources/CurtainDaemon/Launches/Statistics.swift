/// Counts since start and the request-to-revealed times of recent launches.
struct Statistics: Sendable {
    var requested = 0, started = 0, queued = 0, merged = 0, busy = 0
    var revealed = 0, failed = 0, cancelled = 0
    /// The last `window` request-to-revealed durations, seconds.
    private(set) var revealTimes: [Double] = []
    let window = 1000

    mutating func revealed(after seconds: Double) {
        revealed += 1
        revealTimes.append(seconds)
        if revealTimes.count > window { revealTimes.removeFirst(revealTimes.count - window) }
    }

    /// The p-quantile (nearest rank) of the recorded reveal times, or nil with none.
    func quantile(_ p: Double) -> Double? {
        guard !revealTimes.isEmpty else { return nil }
        let sorted = revealTimes.sorted()
        let rank = max(1, Int((p * Double(sorted.count)).rounded(.up)))
        return sorted[rank - 1]
    }
}
