import UnixSockets

#if canImport(Glibc)
import Glibc
#endif

/// The service side of sd_notify(3): tells the service manager about readiness, status,
/// reloading, stopping and liveness. Every call is a no-op outside systemd (no NOTIFY_SOCKET).
/// The protocol is one datagram to NOTIFY_SOCKET (a path, or "@" and an abstract name), which
/// systemd documents for services to send themselves; sent here without libsystemd (see
/// `JournalLogHandler`).
public struct Notifier: Sendable {
    public init() {}

    /// Whether a service manager is listening.
    public var isActive: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// Sends `assignments` (e.g. ["READY=1", "STATUS=idle"]); returns whether it was delivered.
    @discardableResult
    public func notify(_ assignments: [String]) -> Bool {
        guard let variable = getenv("NOTIFY_SOCKET"), let address = try? UnixSocketAddress(String(cString: variable))
        else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var message = assignments.joined(separator: "\n")
        let sent = message.withUTF8 { bytes in
            address.withSockAddr { sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) }
        }
        return sent == message.utf8.count
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
    /// watchdog is off: as sd_watchdog_enabled(3) reads it, WATCHDOG_USEC counts only when
    /// WATCHDOG_PID is unset or names this process.
    public var watchdogInterval: Duration? {
        guard let usec = getenv("WATCHDOG_USEC").flatMap({ UInt64(String(cString: $0)) }), usec > 0 else { return nil }
        if let pid = getenv("WATCHDOG_PID") {
            guard let owner = pid_t(String(cString: pid)), owner == getpid() else { return nil }
        }
        return .microseconds(Int64(clamping: usec / 2))
    }
}
