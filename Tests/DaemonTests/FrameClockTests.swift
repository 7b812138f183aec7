import CurtainTestKit
@testable import CurtainDaemon
import Testing

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
                    try await clock.sleep(until: deadline)   // ok-sleep: the clock's sleep is what is tested
                    #expect(clock.now >= deadline, "woke before its deadline (\(offset) ms)")
                    return offset
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(woken.sorted() == offsets.sorted())
        // A deadline already past returns at once.
        try await clock.sleep(until: start)   // ok-sleep: under test (a past deadline returns at once)
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledSleeperLeavesAtOnce() async throws {
        let clock = try FrameClock()
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(3600))) }   // ok-sleep: under test (cancelled)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        // The clock still serves others after a cancellation.
        let deadline = clock.now.advanced(by: .milliseconds(5))
        try await clock.sleep(until: deadline)   // ok-sleep: under test
        #expect(clock.now >= deadline)
    }
}
