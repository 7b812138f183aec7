import NIOCore
import Synchronization
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// One accepted connection as the serving task sees it: framed messages in (with
/// backpressure), replies out.
///
/// The server does not use NIOAsyncChannel for accepted connections: a connection that
/// arrives while the server shuts down may never reach a serving task, and NIOAsyncChannel
/// traps (in debug builds) when it is dropped unused. This bridge may be dropped freely.
final class ServerConnection: Sendable {
    let channel: any Channel
    let messages = InboundMessages()
    private let gate: ReadGate
    /// Set by `abort`: nothing more is written (the abort's message is the last).
    private let aborted = Atomic<Bool>(false)
    /// Once a streaming call has taken the socket (`takeOver`): every write goes through it,
    /// for the rest of the connection.
    private let direct = Mutex<SocketWriter?>(nil)
    /// Output buffered before `write` waits (the server's outputBufferLimit).
    private let outputLimit: Int

    /// Installs the bridge at the end of `channel`'s pipeline (on its event loop).
    init(channel: any Channel, outputLimit: Int = 16 * 1024) throws {
        self.channel = channel
        self.outputLimit = outputLimit
        gate = ReadGate()
        try channel.pipeline.syncOperations.addHandler(InboundBridge(messages: messages, gate: gate))
        // The socket's writer goes with the channel: NIO closed its descriptor, ours follows.
        channel.closeFuture.whenComplete { [self] _ in direct.withLock { $0 }?.close() }
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
        if let writer = direct.withLock({ $0 }) {
            guard writer.write(bytes, replaceable: false) else { throw ChannelError.outputClosed }
            if writer.queuedBytes > outputLimit, !(await writer.drained()) { throw ChannelError.outputClosed }
            return
        }
        let buffer = ByteBuffer(bytes: bytes)
        if channel.isWritable {
            channel.writeAndFlush(buffer, promise: nil)
        } else {
            try await channel.writeAndFlush(buffer).get()
        }
    }

    /// Gives the streaming call running now the socket (see `VarlinkService.DirectWriter`):
    /// once NIO has written everything queued before, a dup() of the channel's descriptor
    /// becomes the connection's only writer, for every later call too (a caller launching
    /// app after app on one connection paid an empty flush, two SO_COOKIE reads, a dup and a
    /// close per call to take it and hand it back: issue 18). NIO keeps reading (a hang-up
    /// closes the channel, and the writer with it) and keeps the descriptor it closes.
    var directWriter: VarlinkService.DirectWriter {
        VarlinkService.DirectWriter { [self] in
            guard let writer = await takeOver() else { return nil }
            return VarlinkService.DirectOutput(
                write: { writer.write($0, replaceable: $1) },
                queued: { writer.queuedMessages },
                waiting: { writer.waiting }
            )
        }
    }

    private func takeOver() async -> SocketWriter? {
        guard !isAborted else { return nil }
        if let writer = direct.withLock({ $0 }) { return writer }  // an earlier call's: the connection's now
        // Completed in order: once this empty write is done, NIO holds nothing for the socket.
        guard (try? await channel.writeAndFlush(ByteBuffer()).get()) != nil else { return nil }
        let channel = self.channel
        return try? await channel.eventLoop.flatSubmit { [self] () -> EventLoopFuture<SocketWriter?> in
            guard channel.isActive, let fd = Self.descriptor(of: channel) else {
                return channel.eventLoop.makeSucceededFuture(nil)
            }
            // The number is read from NIO's description of the channel; the socket's cookie,
            // asked through NIO, proves it is this channel's before anything is written to it.
            return Self.cookie(of: channel).map { cookie -> SocketWriter? in
                guard channel.isActive, let cookie else { return nil }
                let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
                guard copy >= 0 else { return nil }
                guard Self.cookie(of: copy) == cookie else {
                    Glibc.close(copy)
                    return nil
                }
                let writer = SocketWriter(fd: copy)
                self.direct.withLock { $0 = writer }
                return writer
            }
        }.get()
    }

    /// SO_COOKIE (<asm-generic/socket.h>): a number the kernel gives each socket, never reused.
    private static let cookieOption: Int32 = 57

    private static func cookie(of channel: any Channel) -> EventLoopFuture<UInt64?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        return provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(cookieOption)
        )
        .map { (cookie: UInt64) -> UInt64? in cookie }.recover { _ in nil }
    }

    private static func cookie(of fd: Int32) -> UInt64? {
        var cookie: UInt64 = 0
        var size = socklen_t(MemoryLayout<UInt64>.size)
        return getsockopt(fd, SOL_SOCKET, cookieOption, &cookie, &size) == 0 ? cookie : nil
    }

    /// The descriptor in NIO's description of a socket channel ("… fd=12 …"); NIO has no
    /// public accessor for it. Searched byte by byte: `firstRange(of:)` is _StringProcessing's,
    /// one 387 KiB section of code, and a Watch would map pages of it that nothing else an
    /// idle daemon runs touches (BENCHMARKS.md, "curtaind's memory").
    static func descriptor(of channel: any Channel) -> Int32? {
        let text = Array(String(describing: channel).utf8)
        let key = Array("fd=".utf8)
        guard let start = text.indices.first(where: { text[$0...].starts(with: key) }) else { return nil }
        let digits = text[(start + key.count)...].prefix { (48...57).contains($0) }
        return Int32(String(decoding: digits, as: UTF8.self))
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
        if let writer = direct.withLock({ $0 }) {
            // The streaming call has the socket: the last word goes behind what it queued.
            channel.eventLoop.execute {
                channel.setOption(.autoRead, value: false).whenFailure { _ in }
                let deadline = channel.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
                writer.finish(with: bytes) {
                    deadline.cancel()
                    channel.close(promise: nil)
                }
            }
            return
        }
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
            if s.pending >= Self.high && !s.paused {
                s.paused = true
                return true
            }
            return false
        }
    }

    /// A message was consumed; true if reading should resume now.
    func consumed() -> Bool {
        state.withLock { s in
            s.pending -= 1
            if s.paused && s.pending <= Self.low {
                s.paused = false
                return true
            }
            return false
        }
    }
}

private final class InboundBridge: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let messages: InboundMessages
    private let gate: ReadGate
    /// Set by `abort`: nothing more is written (the abort's message is the last).
    private let aborted = Atomic<Bool>(false)

    init(messages: InboundMessages, gate: ReadGate) {
        self.messages = messages
        self.gate = gate
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        messages.yield(unwrapInboundIn(data))
        if gate.received() { try? context.channel.syncOptions?.setOption(.autoRead, value: false) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        messages.finish(throwing: error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        messages.finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        messages.finish()
    }
}
