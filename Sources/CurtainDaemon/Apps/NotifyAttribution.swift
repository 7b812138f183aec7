#if canImport(Glibc)
import Glibc
#endif

/// Which spawned app a notify message belongs to, with no IO and time as input — systemd's
/// manager attributes a message to a unit by its sender before the unit interprets it; here
/// the sender's pid and session (the kernel's SCM_CREDENTIALS pid, its session read when the
/// datagram arrived) against the main pids of the running apps, each the leader of its own
/// session. A message from a session not known yet (its app is being registered) is held for
/// `window`, then rejected.
struct NotifyAttribution<Message: Sendable>: Sendable {
    /// How long a message from an unknown session waits for its app to register.
    static var window: Duration { .seconds(2) }
    /// At most this many messages wait; a message past it is rejected at once.
    static var waitingLimit: Int { 64 }

    enum Verdict: Sendable, Equatable {
        /// The app whose main pid is this.
        case app(pid_t)
        /// Held until its app registers or `window` passes (see `expire`).
        case held
        /// Nobody's: no pid, or `waitingLimit` messages are held already.
        case rejected
    }

    /// The running apps' main pids (= their sessions).
    private(set) var apps: Set<pid_t> = []
    private var waiting: [(arrived: Duration, pid: pid_t, session: pid_t, message: Message)] = []

    /// Which app a message belongs to: its sender when that is an app's main process (or
    /// systemd-notify speaking for it with its parent's pid) — no lookup needed, and it may have
    /// exited before its message was read, when its session can no longer be asked — otherwise
    /// the app whose session it runs in.
    static func owner(pid: pid_t, session: pid_t, isApp: (pid_t) -> Bool) -> pid_t? {
        if pid > 0, isApp(pid) { return pid }
        if session > 0, isApp(session) { return session }
        return nil
    }

    func owner(pid: pid_t, session: pid_t) -> pid_t? {
        Self.owner(pid: pid, session: session) { apps.contains($0) }
    }

    /// Where a message goes: its app's, or held (`now` is when it arrived), or rejected.
    mutating func attribute(_ message: Message, pid: pid_t, session: pid_t, at now: Duration) -> Verdict {
        if let owner = owner(pid: pid, session: session) { return .app(owner) }
        guard pid > 0, waiting.count < Self.waitingLimit else { return .rejected }
        waiting.append((now, pid, session, message))
        return .held
    }

    /// An app's main process started: the messages held for it, in the order they came.
    mutating func register(_ pid: pid_t) -> [Message] {
        apps.insert(pid)
        let mine = { (entry: (arrived: Duration, pid: pid_t, session: pid_t, message: Message)) in
            Self.owner(pid: entry.pid, session: entry.session) { $0 == pid } != nil
        }
        let taken = waiting.filter(mine).map(\.message)
        waiting.removeAll(where: mine)
        return taken
    }

    mutating func unregister(_ pid: pid_t) { apps.remove(pid) }

    /// The held messages whose window has passed at `now`, rejected for good (with their sender).
    mutating func expire(at now: Duration) -> [(pid: pid_t, session: pid_t, message: Message)] {
        let due = { (entry: (arrived: Duration, pid: pid_t, session: pid_t, message: Message)) in
            now - entry.arrived >= Self.window
        }
        let expired = waiting.filter(due).map { ($0.pid, $0.session, $0.message) }
        waiting.removeAll(where: due)
        return expired
    }

    var held: Int { waiting.count }
}
