import CurtainTestKit
import Dispatch
import NIOPosix
import Synchronization
import Testing

@testable import CurtainDaemon

/// The watchdog on a manual clock against real NIO event loops.
@Suite struct WatchdogTests {
    @Test(.timeLimit(.minutes(1))) func pingsFollowTheClockAndStopWhileALoopIsWedged() async throws {
        let clock = ManualClock()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let count = Atomic(0)
        let (pings, sink) = AsyncStream.makeStream(of: Int.self)
        let watchdog = WatchdogService(
            interval: .seconds(5),
            clock: clock,
            loops: loops,
            ping: { sink.yield(count.add(1, ordering: .relaxed).newValue) }
        )
        let running = Task { try await watchdog.run() }
        var received = pings.makeAsyncIterator()

        #expect(await received.next() == 1)  // the first ping at once
        await clock.sleepers()  // then it waits for the interval
        clock.advance(by: .seconds(4))
        await clock.sleepers()
        let early = count.load(ordering: .relaxed)
        #expect(early == 1)  // not before the interval
        clock.advance(by: .seconds(1))
        #expect(await received.next() == 2)

        // Wedge the second loop; when the interval passes, no ping may follow.
        await clock.sleepers()
        let gate = DispatchSemaphore(value: 0)
        loops[1].execute { gate.wait() }
        clock.advance(by: .seconds(5))
        try await Task.sleep(for: .milliseconds(300))  // ok-sleep: a window in which a ping would be the failure
        let whileWedged = count.load(ordering: .relaxed)
        #expect(whileWedged == 2)
        gate.signal()  // unwedged: the held-back ping goes out
        #expect(await received.next() == 3)

        running.cancel()
        _ = await running.result
        try await group.shutdownGracefully()
    }

    @Test func withoutAnIntervalItNeverPings() async throws {
        let clock = ManualClock()
        let pinged = Atomic(false)
        let watchdog = WatchdogService(
            interval: nil,
            clock: clock,
            loops: [],
            ping: { pinged.store(true, ordering: .relaxed) }
        )
        let running = Task { try await watchdog.run() }
        running.cancel()
        _ = await running.result
        let wasPinged = pinged.load(ordering: .relaxed)
        #expect(!wasPinged)
    }
}

extension WatchdogTests {
    /// A probe that does not answer (a wedged actor) holds the ping back just like a loop.
    @Test(.timeLimit(.minutes(1))) func aProbeThatDoesNotAnswerHoldsThePing() async throws {
        let clock = ManualClock()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let (pings, sink) = AsyncStream.makeStream(of: Void.self)
        let count = Atomic(0)
        let watchdog = WatchdogService(
            interval: .seconds(1),
            clock: clock,
            loops: [],
            probes: [{ for await _ in gate { return } }],
            ping: {
                count.add(1, ordering: .relaxed)
                sink.yield()
            }
        )
        let running = Task { try await watchdog.run() }
        try await Task.sleep(for: .milliseconds(200))  // ok-sleep: a window in which a ping would be the failure
        let held = count.load(ordering: .relaxed)
        #expect(held == 0)
        var received = pings.makeAsyncIterator()
        open.yield()
        #expect(await received.next() != nil)
        #expect(clock.now.offset == .zero)  // it came from the probe, not from time passing
        running.cancel()
        _ = await running.result
    }
}
