#if canImport(Glibc)
import Glibc
#endif

/// Which unit the senders of notify messages run in, as systemd answered (GetUnitByPID), so a
/// sender is asked about once per launch, not once per message; no IO. Bounded: at most
/// `limit` senders are remembered, and once that many are, an unknown one is not asked about
/// (its messages go the way of any stranger's: rejected, in the throttled log).
struct UnitSenders: Sendable, Equatable {
    /// Distinct senders asked about while launches of units are waiting.
    static let limit = 64

    enum Lookup: Sendable, Equatable {
        /// It runs in this (watched) unit.
        case unit(String)
        /// Asked: it is in no unit a launch waits for.
        case stranger
        /// Not asked yet: ask systemd, then `record`.
        case ask
        /// Not asked, and not to be: `limit` senders are remembered already.
        case full
    }

    private var known: [pid_t: String?] = [:]

    func lookup(_ pid: pid_t) -> Lookup {
        switch known[pid] {
        case .some(.some(let unit)): .unit(unit)
        case .some(.none): .stranger
        case .none: known.count < Self.limit ? .ask : .full
        }
    }

    /// systemd's answer for `pid`: a watched unit, or nil (no unit, or one no launch waits for).
    mutating func record(_ pid: pid_t, unit: String?) {
        guard known[pid] != nil || known.count < Self.limit else { return }
        known[pid] = .some(unit)
    }

    /// `unit` starts again or its launch ended: its processes are new (pids may be reused),
    /// and so may be those asked about and found in no unit.
    mutating func forget(unit: String) {
        known = known.filter { entry in entry.value.map { $0 != unit } ?? false }
    }

    /// No launch waits for a unit: nothing is worth remembering.
    mutating func reset() { known = [:] }

    var count: Int { known.count }
}
