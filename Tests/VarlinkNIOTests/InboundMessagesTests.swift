import CurtainTestKit
import Dispatch
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import VarlinkNIO

#if canImport(Glibc)
import Glibc
#endif

/// A connection's messages reach its serving task (isolated to its channel's event loop)
/// without a hop through the concurrency pool (issue 18).
@Suite struct InboundMessagesTests {
    final class Order: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    static func consume(
        _ messages: InboundMessages,
        _ order: Order,
        _ loop: any EventLoop,
        on isolation: isolated EventLoopIsolation,
        received: DispatchSemaphore
    ) async throws {
        while let message = try await messages.next() {
            let text = String(buffer: message)
            order.append("\(text) on the loop: \(loop.inEventLoop)")
            received.signal()
        }
        order.append("end")
    }

    /// Resumed from the pipeline, the consumer runs on the event loop even while every thread
    /// of the concurrency pool is blocked: it is not sent through the pool to come back (an
    /// AsyncThrowingStream's consumer was, and waited here until the pool was free).
    @Test(.timeLimit(.minutes(1))) func aMessageReachesItsConsumerWithoutThePool() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let messages = InboundMessages()
        let order = Order()
        let isolation = EventLoopIsolation(loop)
        let received = DispatchSemaphore(value: 0)
        // As the server runs a connection: preferring its event loop, isolated to it.
        let consumer = Task(executorPreference: EventLoopTaskExecutor(loop)) {
            try await Self.consume(messages, order, loop, on: isolation, received: received)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !messages.hasWaiter, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))  // ok-sleep: the poll interval of a bounded wait
        }
        // The pool's threads (one per core) blocked until the message has been consumed, or 10 s.
        let width = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let blockers = (0..<width).map { _ in
            Task.detached {
                started.signal()
                _ = release.wait(timeout: .now() + 10)
            }
        }
        let consumedWhileBlocked = await offload {
            for _ in 0..<width { _ = started.wait(timeout: .now() + 10) }
            loop.execute { messages.yield(ByteBuffer(string: "a")) }
            let consumed = received.wait(timeout: .now() + 5) == .success
            for _ in 0..<width { release.signal() }
            return consumed
        }
        for blocker in blockers { await blocker.value }
        #expect(consumedWhileBlocked, "the consumer waited for the pool")
        try await loop.submit { messages.finish() }.get()
        try await consumer.value
        #expect(order.lines.withLock { $0 } == ["a on the loop: true", "end"])
    }

    /// Messages that arrive before the consumer waits are kept in order; an error ends the
    /// stream after them, once; a cancelled wait returns nil.
    @Test func bufferedMessagesComeFirstThenTheError() async throws {
        struct Broken: Error {}
        let messages = InboundMessages()
        messages.yield(ByteBuffer(string: "1"))
        messages.yield(ByteBuffer(string: "2"))
        messages.finish(throwing: Broken())
        messages.yield(ByteBuffer(string: "after the end"))
        #expect(try await messages.next().map { String(buffer: $0) } == "1")
        #expect(try await messages.next().map { String(buffer: $0) } == "2")
        await #expect(throws: Broken.self) { try await messages.next() }
        #expect(try await messages.next() == nil)

        let waiting = InboundMessages()
        let task = Task { try await waiting.next() }
        task.cancel()
        #expect(try await task.value == nil)
    }
}
