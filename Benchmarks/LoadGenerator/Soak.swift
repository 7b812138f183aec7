import CurtainctlSupport
import JSON
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// MARK: Soak (issue 18)

extension Scenarios {
    /// `observers` connections watch every frame and state event while a launch starts every
    /// `interval` milliseconds for `seconds`; each observer keeps reading throughout. Prints one
    /// line once the observers are registered (launching starts), then returns whether every
    /// observer saw every launch's state events without a gap (`StateContinuity`).
    func soak(observers: Int, seconds: Int, interval: Int, app: String) throws(LoadError) -> [String: JSONValue] {
        let continuity = StateContinuity(observers: observers)
        let pool = ObserverPool { connection, _, message in
            guard message.contains(#""kind":"state""#) else { return }
            continuity.record(observer: connection, message)
        }
        try pool.connect(count: observers, to: socket, call: Self.watch(frames: true))
        pool.start()
        var client = try client()
        defer { client.close() }
        try waitForObservers(&client, observers)
        // The soak's clock starts now (connecting 1000 observers may take a while): one line
        // says so, the result follows when it ends.
        printJSON(["observers": .int(Int64(observers)), "launching": .bool(true)])

        var launched: [Int64] = []
        var decisions: [String: Int] = [:]
        let start = Time.now()
        let end = start + Int64(seconds) * 1_000_000_000
        var next = start
        while next < end {
            let reply = try call(&client, "Launch", ["route": ["normal": .string(app)]])
            guard case .object(let info)? = reply["launch"], case .int(let id)? = info["id"],
                case .string(let decision)? = reply["decision"]
            else { throw .daemon("Launch answered \(reply)") }
            decisions[decision, default: 0] += 1
            if decision != "merged" { launched.append(id) }
            next += Int64(interval) * 1_000_000
            let wait = next - Time.now()
            if wait > 0 { usleep(UInt32(wait / 1000)) }  // pacing the launches (a harness, not synchronisation)
        }
        // Every observer sees the last launch end (bounded), then the pool stops.
        let deadline = Time.now() + 60_000_000_000
        if let last = launched.last {
            while continuity.ended(last) < observers - pool.closed {
                guard Time.now() < deadline else { break }  // reported below as lost events
                usleep(10_000)  // polling a counter, bounded by the deadline
            }
        }
        pool.shutdown()
        var result = continuity.json(launched: launched)
        result["observers"] = .int(Int64(observers))
        result["seconds"] = .int(Int64(seconds))
        result["interval_ms"] = .int(Int64(interval))
        result["decisions"] = .object(decisions.mapValues { .int(Int64($0)) })
        result["disconnected"] = .int(Int64(pool.closed))
        return result
    }
}

/// Per observer, each launch's state events in order: a launch's first event must leave
/// `requested` and each later one leave the state the previous entered, up to an end
/// (`revealed`, `failed`, `cancelled`). A lost event shows as a gap or a launch never ended.
final class StateContinuity: @unchecked Sendable {
    // Touched by the pool's one thread; read by others only through `ended` (locked) and
    // after the pool stopped (`json`).
    /// Each observer's launches in flight (an ended one is forgotten and counted).
    private var last: [[Int64: String]]
    private var endings: [Int]
    private var gaps = 0
    private var events = 0
    private var firstGap: String?
    /// How many observers have seen each launch end.
    private let ends = Mutex<[Int64: Int]>([:])
    static let terminal: Set<String> = ["revealed", "failed", "cancelled"]

    init(observers: Int) {
        last = Array(repeating: [:], count: observers)
        endings = Array(repeating: 0, count: observers)
    }

    func record(observer: Int, _ message: UnsafeRawBufferPointer) {
        guard let launch = message.number(after: #""launch":"#).map({ Int64($0) }),
            let from = message.string(after: #""from":""#), let to = message.string(after: #""to":""#)
        else { return }
        events += 1
        let expected = last[observer][launch] ?? "requested"
        if from != expected {
            gaps += 1
            if firstGap == nil {
                firstGap = "observer \(observer), launch \(launch): \(from) → \(to) after \(expected)"
            }
        }
        if Self.terminal.contains(to) {
            last[observer][launch] = nil
            endings[observer] += 1
            ends.withLock { $0[launch, default: 0] += 1 }
        } else {
            last[observer][launch] = to
        }
    }

    /// How many observers have seen `launch` end.
    func ended(_ launch: Int64) -> Int { ends.withLock { $0[launch] ?? 0 } }

    func json(launched: [Int64]) -> [String: JSONValue] {
        // A launch an observer never saw end, or saw with a gap, is a lost event.
        let unended = endings.reduce(0) { $0 + max(0, launched.count - $1) }
        let complete = endings.filter { $0 >= launched.count }.count
        var result: [String: JSONValue] = [
            "launches": .int(Int64(launched.count)), "state_events": .int(Int64(events)),
            "gaps": .int(Int64(gaps)), "launches_not_seen_ending": .int(Int64(unended)),
            "observers_seeing_every_end": .int(Int64(complete)),
            "lost_state_events": .int(Int64(gaps + unended)),
        ]
        if let firstGap { result["first_gap"] = .string(firstGap) }
        return result
    }
}

extension UnsafeRawBufferPointer {
    /// The JSON string value right after `key` (e.g. `"to":"`), up to its closing quote
    /// (the state names have no escapes).
    func string(after key: StaticString) -> String? {
        guard let r = range(of: key), let close = self[r.upperBound...].firstIndex(of: UInt8(ascii: "\"")) else {
            return nil
        }
        return String(decoding: self[r.upperBound..<close], as: UTF8.self)
    }
}
