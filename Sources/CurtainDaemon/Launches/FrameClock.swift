import CNotify
import Synchronization
import Threads

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's frame clock: `ContinuousClock`'s instants (CLOCK_BOOTTIME on Linux), with sleeps
/// ended by a `timerfd` armed at the absolute deadline and read on a thread of its own.
/// `Task.sleep` on Linux goes through Dispatch's timers, which woke ≈220 µs late here (a frame
/// observer's p99 lateness was 1.3 ms); an absolute timerfd has no leeway and no coalescing.
///
/// The thread is also a serial executor: the driver actor runs on it (`LaunchDriver`), so a
/// timer that fires resumes the driver's loop on the same thread, at once — no hop through the
/// concurrency pool between the deadline and the frame's write to the observers' sockets. It is a
/// task executor too: the driver's loop prefers it, because a continuation resumes on the pool
/// whoever resumes it, and would hop back to this thread from there.
///
/// One thread serves every sleeper of a clock: the earliest deadline arms the timer, a
/// sleeper that is cancelled leaves at once (with `CancellationError`, as `Task.sleep`).
public final class FrameClock: Clock, SerialExecutor, TaskExecutor, @unchecked Sendable {
    public typealias Instant = ContinuousClock.Instant
    public typealias Duration = Swift.Duration

    public var now: Instant { .now }
    public var minimumResolution: Duration { .nanoseconds(1) }

    private struct Alarm {
        let id: UInt64
        let deadline: Instant
        let fire: @Sendable () -> Void
    }

    private struct State {
        var alarms: [Alarm] = []
        var nextID: UInt64 = 0
        var armed: Instant? = nil
        var jobs: [UnownedJob] = []
        /// The thread waits in poll(2): a job must wake it.
        var idle = false
        var scheduling = Scheduling.inherited
    }

    /// How the clock's thread asks to be scheduled.
    public enum Priority: Sendable {
        /// As the thread that created it (tests, tools).
        case inherited
        /// Ahead of every time-shared thread (curtaind): see `raisePriority`.
        case realtime
    }

    /// What the thread got.
    public enum Scheduling: Sendable, Equatable, CustomStringConvertible {
        case inherited
        /// SCHED_FIFO at this priority.
        case realtime(priority: Int32)
        /// Real-time was refused (this errno): time-shared, with a short slice.
        case shortSlice(realtimeRefused: Int32)
        /// Both were refused (the errno of each): as the process.
        case unchanged(realtimeRefused: Int32, sliceRefused: Int32)

        public var description: String {
            switch self {
            case .inherited: "inherited from the process"
            case .realtime(let priority): "real-time (SCHED_FIFO, priority \(priority))"
            case .shortSlice(let code):
                "time-shared with a \(FrameClock.slice / 1000) µs slice (real-time refused: \(POSIX.errorText(code)))"
            case .unchanged(let realtime, let slice):
                "as the process (real-time refused: \(POSIX.errorText(realtime)); a short slice refused: \(POSIX.errorText(slice)))"
            }
        }
    }

    /// The lowest real-time priority: ahead of every time-shared thread, behind any real-time
    /// thread the device runs already (a compositor's, an audio server's).
    public static let realtimePriority: Int32 = 1
    /// The slice asked for when real-time is refused (the kernel's minimum).
    public static let slice: UInt64 = 100_000

    /// Run on the clock's thread. A frame or a state event must not wait for whatever else
    /// wants the CPU when an app starts: in `make bench` scenario 3 the app, woken by its
    /// BARRIER=1's answer, preempted this thread between READY=1 and the `revealing` write,
    /// for its whole exit (≈ 1 ms, the other core idle; BENCHMARKS.md, "READY=1 → revealing").
    /// SCHED_FIFO needs CAP_SYS_NICE or an RLIMIT_RTPRIO (curtaind.service: LimitRTPRIO=1);
    /// without it, a short EEVDF slice is what an unprivileged thread can ask.
    private static func raisePriority() -> Scheduling {
        guard curtain_set_thread_realtime(realtimePriority) != 0 else { return .realtime(priority: realtimePriority) }
        let realtime = errno
        guard curtain_set_thread_slice(slice) != 0 else { return .shortSlice(realtimeRefused: realtime) }
        return .unchanged(realtimeRefused: realtime, sliceRefused: errno)
    }

    private let timer: Int32
    /// A pipe that wakes the thread for a job.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let state = Mutex(State())

    public enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        public var description: String {
            switch self {
            case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Drivers on other clocks (tests' manual clock) run on this one's thread.
    static let shared: FrameClock = { do { return try FrameClock() } catch { fatalError("\(error)") } }()

    private let priority: Priority

    /// Opens the timer and starts its thread; the clock lives as long as the process (the
    /// daemon has one).
    public init(priority: Priority = .inherited) throws(Failure) {
        self.priority = priority
        timer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timer >= 0 else { throw .system("timerfd_create", errno) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            close(timer)
            throw .system("pipe", errno)
        }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        // Named, so a scheduler trace tells it from the pool's threads (it would inherit
        // the name of whichever thread created it).
        guard DetachedThread.start(name: "frame-clock", { [self] in serve() }) else {
            close(timer)
            close(ends[0])
            close(ends[1])
            throw .system("pthread_create", EAGAIN)
        }
    }

    /// How the thread is scheduled (once it has started: an alarm it fires answers).
    public func scheduling() async -> Scheduling {
        await withCheckedContinuation { answer in
            _ = schedule(at: .now) { [self] in answer.resume(returning: state.withLock { $0.scheduling }) }
        }
    }

    // MARK: Executor

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wake = state.withLock { s in
            s.jobs.append(job)
            defer { s.idle = false }
            return s.idle
        }
        if wake { self.wake() }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: Clock

    /// Calls `fire` on the clock's thread once `deadline` has passed; `cancel` with the id
    /// returned takes it back.
    func schedule(at deadline: Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, wake) = state.withLock { s -> (UInt64, Bool) in
            s.nextID += 1
            s.alarms.append(Alarm(id: s.nextID, deadline: deadline, fire: fire))
            guard s.armed.map({ deadline < $0 }) ?? true else { return (s.nextID, false) }
            arm(&s, at: deadline)
            return (s.nextID, false)
        }
        if wake { self.wake() }
        return id
    }

    /// Takes back an alarm not yet fired; true if it was.
    @discardableResult
    func cancel(_ id: UInt64) -> Bool {
        state.withLock { s in
            guard let index = s.alarms.firstIndex(where: { $0.id == id }) else { return false }
            s.alarms.remove(at: index)
            return true
        }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if deadline <= .now { return }
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                sleeper.continuation.withLock { $0 = continuation }
                // Cancelled before the continuation existed: the handler found nothing to resume.
                if Task.isCancelled { return sleeper.resume(throwing: CancellationError()) }
                let alarm = schedule(at: deadline) { sleeper.resume(throwing: nil) }
                sleeper.alarm.withLock { $0 = alarm }
            }
        } onCancel: {
            if let alarm = sleeper.alarm.withLock({ $0 }) { cancel(alarm) }
            sleeper.resume(throwing: CancellationError())
        }
    }

    /// One sleep: resumed once, by its alarm or its cancellation.
    private final class Sleeper: Sendable {
        let continuation = Mutex<CheckedContinuation<Void, any Error>?>(nil)
        let alarm = Mutex<UInt64?>(nil)

        func resume(throwing error: (any Error)?) {
            guard let continuation = continuation.withLock({ $0.take() }) else { return }
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }

    /// Arms the timer at `deadline` on CLOCK_BOOTTIME (the continuous clock's own).
    private func arm(_ state: inout State, at deadline: Instant) {
        state.armed = deadline
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let ahead = max(Instant.now.duration(to: deadline), .nanoseconds(1))
        var nanoseconds = Int64(now.tv_nsec) + ahead.components.attoseconds / 1_000_000_000
        var seconds = Int64(now.tv_sec) + ahead.components.seconds + nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        if nanoseconds < 0 {
            nanoseconds += 1_000_000_000
            seconds -= 1
        }
        var spec = itimerspec(
            it_interval: timespec(),
            it_value: timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
        )
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// The thread: fires the alarms due when the timer expires (re-arming it for the next), and
    /// runs the jobs enqueued on it, until there is nothing to do; then waits for either.
    private func serve() {
        if priority == .realtime {
            let got = Self.raisePriority()
            state.withLock { $0.scheduling = got }
        }
        var expirations: UInt64 = 0
        var drain = [UInt8](repeating: 0, count: 64)
        var fds = [
            pollfd(fd: timer, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            // The timer may expire a hair before `Instant.now` reaches the deadline (`arm`
            // reads the two clocks one after the other): it is one-shot, so whenever it has
            // expired it is armed again, or that alarm would never fire (a launch stuck in
            // `revealing` under load was this).
            let expired = read(timer, &expirations, 8) == 8
            let due = state.withLock { state -> [Alarm] in
                let now = Instant.now
                let due = state.alarms.filter { $0.deadline <= now }
                guard !due.isEmpty || expired || state.armed.map({ $0 <= now }) == true else { return [] }
                state.alarms.removeAll { $0.deadline <= now }
                // Always re-armed for the earliest left (also when the wake came a hair before
                // a deadline, as the two clocks' readings may differ by a nanosecond).
                state.armed = nil
                if let next = state.alarms.min(by: { $0.deadline < $1.deadline })?.deadline { arm(&state, at: next) }
                return due.sorted { $0.deadline < $1.deadline }
            }
            for alarm in due { alarm.fire() }
            // Jobs, including those the alarms just made ready, until none is left.
            while let jobs = state.withLock({ s -> [UnownedJob]? in
                if s.jobs.isEmpty {
                    s.idle = true
                    return nil
                }
                defer { s.jobs.removeAll(keepingCapacity: true) }
                return s.jobs
            }) {
                for job in jobs {
                    job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                }
            }
            if poll(&fds, 2, -1) < 0 { continue }
            if fds[1].revents != 0 { while read(wakeRead, &drain, drain.count) > 0 {} }
            state.withLock { $0.idle = false }
        }
    }
}
