import NIOCore
import Synchronization
import Varlink

/// One accepted connection as the serving task sees it: framed messages in (with
/// backpressure), replies out.
///
/// The server does not use NIOAsyncChannel for accepted connections: a connection that
/// arrives while the server shuts down may never reach a serving task, and NIOAsyncChannel
/// traps (in debug builds) when it is dropped unused. This bridge may be dropped freely.
final class ServerConnection: Sendable {
    let channel: any Channel
    let messages: AsyncThrowingStream<ByteBuffer, any Error>
    private let gate: ReadGate
    /// Set by `abort`: nothing more is written (the abort's message is the last).
    private let aborted = Atomic<Bool>(false)

    /// Installs the bridge at the end of `channel`'s pipeline (on its event loop).
    init(channel: any Channel) throws {
        self.channel = channel
        let (messages, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        self.messages = messages
        gate = ReadGate()
        try channel.pipeline.syncOperations.addHandler(InboundBridge(continuation: continuation, gate: gate))
    }

    /// Call after taking each message: reading resumes once the backlog has drained.
    func consumed() {
        if gate.consumed() { channel.setOption(.autoRead, value: true).whenFailure { _ in } }
    }

    /// Writes one reply. While the channel is writable (its buffered output is under the
    /// configured high-water mark) this does not wait; past it, it waits until the reply has
    /// been handed to the socket, so a client that does not read stalls only itself and its
    /// buffer stays bounded.
    func write(_ bytes: [UInt8]) async throws {
        guard !isAborted else { throw ChannelError.outputClosed }
        let buffer = ByteBuffer(bytes: bytes)
        if channel.isWritable {
            channel.writeAndFlush(buffer, promise: nil)
        } else {
            try await channel.writeAndFlush(buffer).get()
        }
    }

    /// Writes from the event loop, for fan-out without the serving task (see DirectWriter).
    var directWriter: VarlinkService.DirectWriter {
        let channel = self.channel
        return VarlinkService.DirectWriter(
            loop: ObjectIdentifier(channel.eventLoop),
            execute: { body in channel.eventLoop.execute(body) },
            writeIfWritable: { [self] bytes in
                guard channel.isWritable, !self.isAborted else { return false }
                channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
                return true
            })
    }

    var isAborted: Bool { aborted.load(ordering: .relaxed) }

    /// The last word to a peer that stopped reading: queues `bytes` past any backpressure,
    /// writes nothing after them, and closes once they are written — or after `linger` if the
    /// peer takes nothing more (its buffer stays full), then without them. Closing at once
    /// lost them whenever replies were still queued (the usual case for a stalled peer):
    /// closing fails the writes not yet handed to the socket.
    func abort(_ bytes: [UInt8], linger: TimeAmount) {
        guard !aborted.exchange(true, ordering: .relaxed) else { return }
        let channel = self.channel
        channel.eventLoop.execute {
            // Nothing more is read: the connection only drains its output now.
            channel.setOption(.autoRead, value: false).whenFailure { _ in }
            let written = channel.eventLoop.makePromise(of: Void.self)
            channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: written)
            let deadline = channel.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
            written.futureResult.whenComplete { _ in
                deadline.cancel()
                channel.close(promise: nil)
            }
        }
    }

    func close() async {
        try? await channel.close()
    }
}

/// Counts messages received but not yet consumed; past the high mark reading pauses.
final class ReadGate: Sendable {
    static let high = 32
    static let low = 8
    private let state = Mutex((pending: 0, paused: false))

    /// A message arrived; true if reading should pause now.
    func received() -> Bool {
        state.withLock { s in
            s.pending += 1
            if s.pending >= Self.high && !s.paused { s.paused = true; return true }
            return false
        }
    }

    /// A message was consumed; true if reading should resume now.
    func consumed() -> Bool {
        state.withLock { s in
            s.pending -= 1
            if s.paused && s.pending <= Self.low { s.paused = false; return true }
            return false
        }
    }
}

private final class InboundBridge: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation
    private let gate: ReadGate
    /// Set by `abort`: nothing more is written (the abort's message is the last).
    private let aborted = Atomic<Bool>(false)

    init(continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation, gate: ReadGate) {
        self.continuation = continuation
        self.gate = gate
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(unwrapInboundIn(data))
        if gate.received() { try? context.channel.syncOptions?.setOption(.autoRead, value: false) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        continuation.finish()
    }
}
