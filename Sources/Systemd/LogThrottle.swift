import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Rate limit for log lines caused by other processes (a flood of notify datagrams must not
/// become a flood of log lines): at most one line per key (a sender's pid) per interval and at
/// most `linesPerInterval` in all; what is held back is counted and reported later as
/// "suppressed N messages from pid P". Pure: the time is an argument.
public struct LogThrottle<Key: Hashable & Sendable>: Sendable {
    public typealias Instant = ContinuousClock.Instant

    /// A key logs at most one line per interval.
    public static var interval: Duration { .seconds(1) }
    /// All keys together log at most this many lines (summaries included) per interval.
    public static var linesPerInterval: Int { 10 }
    /// Keys remembered at once; lines from further keys are counted together ("other senders").
    public static var trackedKeys: Int { 256 }

    public enum Verdict: Sendable, Equatable {
        /// Log it; `suppressed` lines from this key were held back since its last line.
        case log(suppressed: Int)
        case suppress
    }

    /// A count of lines held back: from `key`, or from untracked keys when it is nil.
    public struct Summary: Sendable, Equatable {
        public let key: Key?
        public let suppressed: Int
        public init(key: Key?, suppressed: Int) {
            self.key = key
            self.suppressed = suppressed
        }
    }

    struct Window {
        var start: Instant
        var suppressed = 0
    }
    private var keys: [Key: Window] = [:]
    private var others: Window?
    private var global: Window?  // `suppressed` counts the lines written in it

    public init() {}

    /// Whether a line from `key` may be written at `now`.
    public mutating func admit(_ key: Key, at now: Instant) -> Verdict {
        if let window = keys[key], now < window.start + Self.interval {
            keys[key]!.suppressed += 1
            return .suppress
        }
        if keys[key] == nil, keys.count >= Self.trackedKeys {
            forgetQuiet(at: now)
            if keys.count >= Self.trackedKeys {
                if others == nil { others = Window(start: now) }
                others!.suppressed += 1
                return .suppress
            }
        }
        guard takeGlobalLine(at: now) else {
            keys[key, default: Window(start: now)].suppressed += 1
            return .suppress
        }
        let held = keys[key]?.suppressed ?? 0
        keys[key] = Window(start: now)
        return .log(suppressed: held)
    }

    /// Summaries due at `now`: the keys whose interval has passed with lines held back, oldest
    /// first, as many as the global limit allows (the rest stay due).
    public mutating func due(at now: Instant) -> [Summary] {
        var summaries: [Summary] = []
        let waiting = keys.filter { $0.value.suppressed > 0 && now >= $0.value.start + Self.interval }.sorted {
            $0.value.start < $1.value.start
        }
        for (key, window) in waiting {
            guard takeGlobalLine(at: now) else { return summaries }
            summaries.append(Summary(key: key, suppressed: window.suppressed))
            keys[key] = Window(start: now)
        }
        if let window = others, now >= window.start + Self.interval, takeGlobalLine(at: now) {
            summaries.append(Summary(key: nil, suppressed: window.suppressed))
            others = nil
        }
        forgetQuiet(at: now)
        return summaries
    }

    /// Everything held back, whether due or not, regardless of the limits: for the end, when
    /// there is no later.
    public mutating func remaining() -> [Summary] {
        let summaries =
            keys.filter { $0.value.suppressed > 0 }.sorted { $0.value.start < $1.value.start }
            .map { Summary(key: $0.key, suppressed: $0.value.suppressed) }
            + (others.map { [Summary(key: nil, suppressed: $0.suppressed)] } ?? [])
        keys = [:]
        others = nil
        return summaries
    }

    /// When `due` will next have something to report (nil: nothing held back).
    public var nextDue: Instant? {
        let starts = keys.values.filter { $0.suppressed > 0 }.map(\.start) + (others.map { [$0.start] } ?? [])
        guard let earliest = starts.min() else { return nil }
        var when = earliest + Self.interval
        if let global, global.suppressed >= Self.linesPerInterval { when = max(when, global.start + Self.interval) }
        return when
    }

    private mutating func takeGlobalLine(at now: Instant) -> Bool {
        if global == nil || now >= global!.start + Self.interval { global = Window(start: now) }
        guard global!.suppressed < Self.linesPerInterval else { return false }
        global!.suppressed += 1
        return true
    }

    /// Keys with nothing held back and their interval over behave as if never seen.
    private mutating func forgetQuiet(at now: Instant) {
        keys = keys.filter { $0.value.suppressed > 0 || now < $0.value.start + Self.interval }
    }
}

/// Warnings about notify senders through a `LogThrottle`: each line names the sender's pid, a
/// line after a quiet spell says how many were held back, and `flush` reports the rest.
public struct ThrottledSenderLog: Sendable {
    public var throttle = LogThrottle<pid_t>()

    public init() {}

    /// Writes `message` about `pid` unless the throttle holds it back (with the count held
    /// back before it), then any summaries that are due.
    public mutating func warning(
        _ logger: Logger,
        _ message: @autoclosure () -> Logger.Message,
        pid: pid_t,
        metadata: Logger.Metadata = [:],
        at now: ContinuousClock.Instant
    ) {
        defer { flush(logger, at: now) }
        guard case .log(let suppressed) = throttle.admit(pid, at: now) else { return }
        var metadata = metadata
        metadata["curtain_sender_pid"] = "\(pid)"
        if suppressed > 0 {
            metadata["curtain_suppressed"] = "\(suppressed)"
            logger.warning(
                "\(message()) (suppressed \(suppressed) messages from pid \(pid) before this)",
                metadata: metadata
            )
        } else {
            logger.warning(message(), metadata: metadata)
        }
    }

    /// Writes the summaries due at `now`; at the end (`now` nil), every one left.
    public mutating func flush(_ logger: Logger, at now: ContinuousClock.Instant?) {
        for summary in now.map({ throttle.due(at: $0) }) ?? throttle.remaining() {
            if let pid = summary.key {
                logger.warning(
                    "suppressed \(summary.suppressed) messages from pid \(pid)",
                    metadata: ["curtain_sender_pid": "\(pid)", "curtain_suppressed": "\(summary.suppressed)"]
                )
            } else {
                logger.warning(
                    "suppressed \(summary.suppressed) messages from other senders",
                    metadata: ["curtain_suppressed": "\(summary.suppressed)"]
                )
            }
        }
    }
}
