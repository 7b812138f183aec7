import CurtainTestKit
import Synchronization
import Testing

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's frame clock (a timerfd on a thread of its own): never wakes a sleeper before
/// its deadline, wakes many in deadline order, and lets a cancelled sleeper go at once.
@Suite struct FrameClockTests {
    @Test(.timeLimit(.minutes(1))) func sleepersWakeAtOrAfterTheirDeadlinesInOrder() async throws {
        let clock = try FrameClock()
        let start = clock.now
        // Deadlines 1…40 ms ahead, added out of order: the earliest arms the timer each time.
        let offsets = [7, 3, 40, 1, 12, 25, 2, 18, 5, 33]
        let woken = try await withThrowingTaskGroup(of: Int.self) { group in
            for offset in offsets {
                group.addTask {
                    let deadline = start.advanced(by: .milliseconds(offset))
                    try await clock.sleep(until: deadline)  // ok-sleep: the clock's sleep is what is tested
                    #expect(clock.now >= deadline, "woke before its deadline (\(offset) ms)")
                    return offset
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(woken.sorted() == offsets.sorted())
        // A deadline already past returns at once.
        try await clock.sleep(until: start)  // ok-sleep: under test (a past deadline returns at once)
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledSleeperLeavesAtOnce() async throws {
        let clock = try FrameClock()
        let hourAway = clock.now.advanced(by: .seconds(3600))
        let sleeper = Task { try await clock.sleep(until: hourAway) }  // ok-sleep: under test (cancelled)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        // The clock still serves others after a cancellation.
        let deadline = clock.now.advanced(by: .milliseconds(5))
        try await clock.sleep(until: deadline)  // ok-sleep: under test
        #expect(clock.now >= deadline)
    }

    /// An actor on the clock's executor, as the driver is.
    actor OnClock {
        let clock: FrameClock
        init(_ clock: FrameClock) { self.clock = clock }
        nonisolated var unownedExecutor: UnownedSerialExecutor { clock.asUnownedSerialExecutor() }

        /// The thread before and after waiting for an alarm, and the one the alarm fired on.
        func waitForAlarm(
            at deadline: FrameClock.Instant
        ) async -> (before: pthread_t, fired: pthread_t, after: pthread_t) {
            let before = pthread_self()
            let fired = await withCheckedContinuation { continuation in
                _ = clock.schedule(at: deadline) { continuation.resume(returning: pthread_self()) }
            }
            return (before, fired, pthread_self())
        }
    }

    /// The clock is the driver's executor: its jobs run on the clock's own thread, and an
    /// alarm resumes the waiting actor on that thread — the frame path never crosses the pool.
    @Test(.timeLimit(.minutes(1))) func anActorOnTheClockResumesOnItsThreadWhenAnAlarmFires() async throws {
        let clock = try FrameClock()
        let actor = OnClock(clock)
        let deadline = clock.now.advanced(by: .milliseconds(5))
        let threads = await actor.waitForAlarm(at: deadline)
        #expect(clock.now >= deadline)
        #expect(pthread_equal(threads.before, threads.fired) != 0 && pthread_equal(threads.fired, threads.after) != 0)
        #expect(pthread_equal(threads.before, pthread_self()) == 0)
        // An alarm taken back never fires.
        let fired = Mutex(false)
        let alarm = clock.schedule(at: clock.now.advanced(by: .milliseconds(200))) { fired.withLock { $0 = true } }
        #expect(clock.cancel(alarm))
        let later = clock.now.advanced(by: .milliseconds(250))
        try await clock.sleep(until: later)  // ok-sleep: under test (the clock's own sleep, past the cancelled alarm)
        #expect(!fired.withLock { $0 })
    }

    /// The policy of the clock's own thread, asked on it (sched_getscheduler(0) carries
    /// SCHED_RESET_ON_FORK as a flag bit).
    static func policyOnThread(of clock: FrameClock) async -> (policy: Int32, resetOnFork: Bool) {
        await withCheckedContinuation { answer in
            _ = clock.schedule(at: clock.now) {
                let raw = sched_getscheduler(0)
                let resetOnFork: Int32 = 0x4000_0000
                answer.resume(returning: (raw & ~resetOnFork, raw & resetOnFork != 0))
            }
        }
    }

    /// curtaind's clock asks to run ahead of time-shared threads: real-time where allowed (root
    /// here, LimitRTPRIO=1 under curtaind.service), else a short slice; what it reports is what
    /// its thread has. A process forked from it starts time-shared (SCHED_RESET_ON_FORK).
    @Test(.timeLimit(.minutes(1))) func aRealtimeClockReportsWhatItsThreadGot() async throws {
        let clock = try FrameClock(priority: .realtime)
        let scheduling = await clock.scheduling()
        let thread = await Self.policyOnThread(of: clock)
        switch scheduling {
        case .realtime(let priority):
            #expect(priority == FrameClock.realtimePriority)
            #expect(thread.policy == SCHED_FIFO && thread.resetOnFork, "\(thread)")
        case .shortSlice, .unchanged:
            #expect(thread.policy == SCHED_OTHER, "\(thread)")
        case .inherited:
            Issue.record("a real-time clock reported no attempt")
        }
        if TestEnvironment.isRoot || TestEnvironment.inCI {
            #expect(scheduling == .realtime(priority: FrameClock.realtimePriority), "\(scheduling)")
        }
        // A clock that asks for nothing keeps the process's policy.
        let plain = try FrameClock()
        #expect(await plain.scheduling() == .inherited)
        #expect(await Self.policyOnThread(of: plain).policy == SCHED_OTHER)
    }

    /// The clock is also a task executor: code of a task that prefers it, resumed by one of its
    /// alarms, runs on the clock's thread, not on a pool thread that would then hop to the
    /// driver (the driver's loop runs so: one thread woken per frame instead of two).
    @Test(.timeLimit(.minutes(1))) func aTaskThatPrefersTheClockResumesOnItsThread() async throws {
        let clock = try FrameClock()
        let alarmThread = Mutex<pthread_t?>(nil)
        @Sendable func waitForAlarm() async -> pthread_t {
            await withCheckedContinuation { continuation in
                _ = clock.schedule(at: clock.now.advanced(by: .milliseconds(2))) {
                    alarmThread.withLock { $0 = pthread_self() }
                    continuation.resume()
                }
            }
            return pthread_self()
        }
        let preferring = await withTaskExecutorPreference(clock) { await waitForAlarm() }
        let fired = try #require(alarmThread.withLock { $0 })
        #expect(pthread_equal(preferring, fired) != 0, "resumed off the clock's thread")
        // Without the preference the same code resumes on the pool.
        let plain = await Task.detached { await waitForAlarm() }.value
        #expect(pthread_equal(plain, fired) == 0)
    }
}
