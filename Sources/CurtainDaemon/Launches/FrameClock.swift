#if canImport(Glibc)
import Glibc
#endif
import CNotify
import Synchronization

/// The daemon's frame clock: `ContinuousClock`'s instants (CLOCK_BOOTTIME on Linux), with sleeps
/// ended by a `timerfd` armed at the absolute deadline and read on a thread of its own.
/// `Task.sleep` on Linux goes through Dispatch's timers, which woke ≈220 µs late here (a frame
/// observer's p99 lateness was 1.3 ms); an absolute timerfd has no leeway and no coalescing.
///
/// One thread serves every sleeper of a clock: the earliest deadline arms the timer, a
/// sleeper that is cancelled leaves at once (with `CancellationError`, as `Task.sleep`).
public final class FrameClock: Clock, @unchecked Sendable {
    public typealias Instant = ContinuousClock.Instant
    public typealias Duration = Swift.Duration

    public var now: Instant { .now }
    public var minimumResolution: Duration { .nanoseconds(1) }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var armed: Instant? = nil
    }

    private let timer: Int32
    private let state = Mutex(State())

    public enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        public var description: String {
            switch self { case .system(let call, let code): "\(call): \(String(cString: strerror(code)))" }
        }
    }

    /// Opens the timer and starts its thread; the clock lives as long as the process (the
    /// daemon has one).
    public init() throws(Failure) {
        timer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC))
        guard timer >= 0 else { throw .system("timerfd_create", errno) }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            let clock = Unmanaged<FrameClock>.fromOpaque(raw!).takeRetainedValue()
            clock.serve()
            return nil
        }, box)
        guard created == 0 else {
            Unmanaged<FrameClock>.fromOpaque(box).release()
            close(timer)
            throw .system("pthread_create", created)
        }
        pthread_detach(thread)
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if deadline <= .now { return }
        let id = state.withLock { state -> UInt64 in state.nextID += 1; return state.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    // Cancelled before the continuation existed: the handler found nothing to resume.
                    if Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    if state.armed.map({ deadline < $0 }) ?? true { arm(&state, at: deadline) }
                    return false
                }
                if resumeNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
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
        if nanoseconds < 0 { nanoseconds += 1_000_000_000; seconds -= 1 }
        var spec = itimerspec(it_interval: timespec(), it_value: timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)))
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// The timer's thread: wakes when the earliest deadline passes, resumes every sleeper due,
    /// and arms the timer for the next.
    private func serve() {
        var expirations: UInt64 = 0
        while true {
            let n = read(timer, &expirations, 8)
            if n < 0 && errno != EINTR && errno != EAGAIN { return }
            let due = state.withLock { state -> [Sleeper] in
                let now = Instant.now
                let due = state.sleepers.filter { $0.deadline <= now }
                state.sleepers.removeAll { $0.deadline <= now }
                // Always re-armed for the earliest left (also when the wake came a hair before
                // a deadline, as the two clocks' readings may differ by a nanosecond).
                state.armed = nil
                if let next = state.sleepers.min(by: { $0.deadline < $1.deadline })?.deadline { arm(&state, at: next) }
                return due
            }
            for sleeper in due { sleeper.continuation.resume() }
        }
    }
}
