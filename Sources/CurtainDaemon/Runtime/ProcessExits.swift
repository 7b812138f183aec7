import CNotify
import Synchronization
import Threads

#if canImport(Glibc)
import Glibc
#endif

/// One thread that waits (epoll) on the pidfds of the processes curtaind spawned, reaps each as
/// it exits (waitid P_PIDFD) and hands its status to whoever watches it.
///
/// Before, each app had a task awaiting swift-subprocess's `run`, whose own monitor thread
/// resumed it: four hand-offs between threads per app, ≈ 14 % of the pool threads' time in
/// `make bench` scenario 6 (issue 18). The thread starts with the first process watched and
/// stays (one thread, one epoll descriptor).
final class ProcessExits: Sendable {
    /// How a process ended.
    enum Status: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)
        /// It could not be reaped here (another waiter took it first).
        case unknown(errno: Int32)

        var isSuccess: Bool { self == .exited(0) }

        var description: String {
            switch self {
            case .exited(let code): "status \(code)"
            case .signaled(let signal): "signal \(signal) (\(String(cString: strsignal(signal))))"
            case .unknown(let number): "an unknown status (\(POSIX.errorText(number)))"
            }
        }
    }

    typealias Handler = @Sendable (Status) -> Void

    static let shared = ProcessExits()

    private struct State {
        var epoll: Int32 = -1
        var handlers: [Int32: Handler] = [:]
    }

    private let state = Mutex(State())

    /// Calls `onExit` once child `pid` has exited and been reaped. `pidfd` (-1: the kernel has
    /// none, as before Linux 5.3 or under valgrind) is this watcher's from now on, closed after
    /// the exit. Without a pidfd, or when the shared thread or its epoll cannot take it, a
    /// thread of its own waits for the process by pid. False only if no thread could be made:
    /// then nothing reports the exit.
    @discardableResult
    func watch(pid: pid_t, pidfd: Int32, onExit: @escaping Handler) -> Bool {
        if pidfd >= 0 {
            let watched = state.withLock { s -> Bool in
                if s.epoll < 0 {
                    guard let epoll = EpollThread.start(name: "process-exits", serve: { [self] in serve($0) }) else {
                        return false
                    }
                    s.epoll = epoll
                }
                guard curtain_epoll_add(s.epoll, pidfd) == 0 else { return false }
                s.handlers[pidfd] = onExit
                return true
            }
            if watched { return true }
            close(pidfd)
        }
        return DetachedThread.start(name: "process-exit") {
            var exit = curtain_exit()
            onExit(Self.status(curtain_pid_wait(pid, &exit), exit))
        }
    }

    private func serve(_ epoll: Int32) {
        // One descriptor per wake-up, no buffer: a Swift array here, written through `&` by
        // the C call, was copied at every wake-up and each copy kept (one 96-byte block per
        // app in `make bench`'s soak: +2 % RSS over 6000 launches).
        while true {
            let pidfd = curtain_epoll_wait_one(epoll)
            guard pidfd >= 0 else { continue }  // EINTR
            let handler = state.withLock { s -> Handler? in
                _ = curtain_epoll_remove(epoll, pidfd)
                return s.handlers.removeValue(forKey: pidfd)
            }
            var exit = curtain_exit()
            let status = Self.status(curtain_pidfd_wait(pidfd, &exit), exit)
            close(pidfd)
            handler?(status)
        }
    }

    private static func status(_ waited: Int32, _ exit: curtain_exit) -> Status {
        waited != 0 ? .unknown(errno: errno) : exit.exited != 0 ? .exited(exit.code) : .signaled(exit.code)
    }
}
