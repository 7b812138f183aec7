import NIOCore
import Synchronization

/// A connection's framed messages on their way from NIO's pipeline to the serving task, which
/// waits for them isolated to `EventLoopIsolation` — its channel's event loop. Resumed from
/// the pipeline (on that loop), the wait goes on right there, in the same pass of the loop: an
/// AsyncThrowingStream resumed its consumer on the concurrency pool first, which then switched
/// to the event loop — a pool thread and a wake-up of the loop between every call's bytes and
/// its handler (issue 18: on the way from a Launch to `presenting`).
final class InboundMessages: Sendable {
    private struct State {
        var buffered: [ByteBuffer] = []
        var head = 0
        var end: Result<Void, any Error>?
        var waiter: CheckedContinuation<ByteBuffer?, any Error>?
    }
    private let state = Mutex(State())

    /// A message arrived.
    func yield(_ message: ByteBuffer) {
        let waiter: CheckedContinuation<ByteBuffer?, any Error>? = state.withLock { s in
            guard s.end == nil else { return nil }
            if let waiter = s.waiter {
                s.waiter = nil
                return waiter
            }
            s.buffered.append(message)
            return nil
        }
        waiter?.resume(returning: message)
    }

    /// No more messages: the consumer gets what is buffered, then nil (or `error`).
    func finish(throwing error: (any Error)? = nil) {
        let waiter: CheckedContinuation<ByteBuffer?, any Error>? = state.withLock { s in
            guard s.end == nil else { return nil }
            s.end = error.map { .failure($0) } ?? .success(())
            defer { s.waiter = nil }
            return s.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// Whether the consumer waits for a message now (for tests).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// The next message; nil once finished (or the waiting task is cancelled, as
    /// AsyncThrowingStream's iterator). One consumer at a time.
    func next(isolation: isolated (any Actor)? = #isolation) async throws -> ByteBuffer? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
                let ready: Result<ByteBuffer?, any Error>? = state.withLock { s in
                    if s.head < s.buffered.count {
                        let message = s.buffered[s.head]
                        s.head += 1
                        if s.head == s.buffered.count {
                            s.buffered.removeAll(keepingCapacity: true)
                            s.head = 0
                        }
                        return .success(message)
                    }
                    switch s.end {
                    case .failure(let error):
                        s.end = .success(())  // thrown once, then nil
                        return .failure(error)
                    case .success: return .success(nil)
                    case nil: break
                    }
                    if Task.isCancelled { return .success(nil) }
                    s.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { s in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}

/// The isolation of a connection's serving task: its channel's event loop as an actor's
/// executor, so a continuation it waits on is resumed on that loop (see `InboundMessages`).
actor EventLoopIsolation {
    nonisolated let executor: any SerialExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(_ eventLoop: any EventLoop) { executor = eventLoop.executor }
}
