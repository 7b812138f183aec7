import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// The service side of sd_notify(3): tells the service manager about readiness, status,
/// reloading, stopping and liveness. Every call is a no-op outside systemd (no NOTIFY_SOCKET).
public struct Notifier: Sendable {
    public init() {}

    /// Whether a service manager is listening.
    public var isActive: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// Sends `assignments` (e.g. ["READY=1", "STATUS=idle"]); returns whether it was delivered.
    @discardableResult
    public func notify(_ assignments: [String]) -> Bool {
        sd_notify(0, assignments.joined(separator: "\n")) > 0
    }

    @discardableResult public func ready(status: String) -> Bool { notify(["READY=1", "STATUS=\(status)"]) }
    @discardableResult public func status(_ text: String) -> Bool { notify(["STATUS=\(text)"]) }
    @discardableResult public func stopping() -> Bool { notify(["STOPPING=1"]) }

    /// RELOADING=1 with MONOTONIC_USEC, as Type=notify-reload expects.
    @discardableResult public func reloading() -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        return notify(["RELOADING=1", "MONOTONIC_USEC=\(microseconds)"])
    }

    @discardableResult public func watchdog() -> Bool { notify(["WATCHDOG=1"]) }

    /// The interval at which to send WATCHDOG=1 — half of WATCHDOG_USEC — or nil when the
    /// watchdog is off (sd_watchdog_enabled(3)).
    public var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds / 2))
    }
}
