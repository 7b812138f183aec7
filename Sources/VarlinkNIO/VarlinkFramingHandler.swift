import NIOCore

/// Splits the byte stream into Varlink messages (JSON terminated by NUL) and enforces the
/// limits that protect the server from bad peers: a maximum message size, a time limit for a
/// message that has begun but never completes (slowloris), and — with a `MessageBudget` — a
/// limit on the bytes of unterminated messages all connections hold together.
///
/// Each byte is examined for the NUL once: the scan resumes where the previous read's scan
/// stopped, so a message that arrives in many reads costs time linear in its size (a rescan
/// from its start on every read cost ~850 ms of an event loop for a 15 MiB message).
public final class VarlinkFramingHandler: ChannelInboundHandler {
    /// The bytes as they arrive.
    public typealias InboundIn = ByteBuffer
    /// One message, without its NUL terminator.
    public typealias InboundOut = ByteBuffer

    /// Why the handler gave up on a connection; it fires the error down the pipeline once and
    /// ignores all input after it.
    public enum FramingError: Error, Equatable {
        /// A message grew past `limit` bytes.
        case messageTooLarge(limit: Int)
        /// A message begun did not complete within `timeout`.
        case incompleteMessage(timeout: TimeAmount)
        /// Buffering this connection's partial message would take the bytes of unterminated
        /// messages held across all connections past the server's budget.
        case budgetExceeded(limit: Int)
    }

    private let maximumMessageSize: Int
    private let messageTimeout: TimeAmount?
    private let budget: MessageBudget?
    private var buffer: ByteBuffer?
    /// Readable bytes of `buffer` already examined and known to hold no NUL.
    private var scanned = 0
    /// What this connection has charged to `budget`.
    private var charged = 0
    private var timer: Scheduled<Void>?
    private var failed = false
    /// Bytes examined for a NUL since the handler was added (tests prove the scan linear).
    package private(set) var examinedBytes = 0

    /// - Parameters:
    ///   - maximumMessageSize: Largest message, in bytes without the NUL; a longer one fails the
    ///     connection as soon as more than that is buffered, before its end arrives.
    ///   - messageTimeout: How long a message may take from its first byte to its NUL; nil for
    ///     no limit (a client trusts its service).
    ///   - budget: Shared by all of a server's connections to bound what they buffer together.
    public init(maximumMessageSize: Int, messageTimeout: TimeAmount?, budget: MessageBudget? = nil) {
        self.maximumMessageSize = maximumMessageSize
        self.messageTimeout = messageTimeout
        self.budget = budget
    }

    /// Passes on every complete message in `data` and keeps the remainder for the next read.
    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var incoming = unwrapInboundIn(data)
        if buffer == nil {
            buffer = incoming
            scanned = 0
        } else {
            buffer!.writeBuffer(&incoming)
        }

        var completed = false
        while true {
            let unscanned = buffer!.readableBytesView.dropFirst(scanned)
            let nul = unscanned.firstIndex(of: 0)
            examinedBytes += (nul.map { $0 + 1 } ?? unscanned.endIndex) - unscanned.startIndex
            guard let nul else {
                scanned = buffer!.readableBytes
                break
            }
            let length = nul - buffer!.readerIndex
            guard length <= maximumMessageSize else {
                return fail(context, .messageTooLarge(limit: maximumMessageSize))
            }
            let message = buffer!.readSlice(length: length)!
            buffer!.moveReaderIndex(forwardBy: 1)
            scanned = 0
            completed = true
            context.fireChannelRead(wrapInboundOut(message))
            if failed { return }
        }
        if buffer!.readableBytes > maximumMessageSize {
            return fail(context, .messageTooLarge(limit: maximumMessageSize))
        }
        guard charge(buffer!.readableBytes) else { return fail(context, .budgetExceeded(limit: budget!.limit)) }

        if buffer!.readableBytes == 0 {
            buffer = nil
            scanned = 0
            timer?.cancel()
            timer = nil
        } else {
            if buffer!.readerIndex > 64 * 1024 { buffer!.discardReadBytes() }
            // A partial message: its clock starts now, or restarts if another one completed.
            if completed {
                timer?.cancel()
                timer = nil
            }
            if timer == nil, let messageTimeout {
                timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: messageTimeout) {
                    [weak self] in
                    guard let self else { return }
                    self.fail(context, .incompleteMessage(timeout: messageTimeout))
                }
            }
        }
    }

    /// Makes this connection's charge to the budget `bytes`; false if that does not fit.
    private func charge(_ bytes: Int) -> Bool {
        guard let budget, bytes != charged else { return true }
        if bytes < charged {
            budget.release(charged - bytes)
        } else {
            guard budget.reserve(bytes - charged) else { return false }
        }
        charged = bytes
        return true
    }

    private func releaseAll() {
        buffer = nil
        scanned = 0
        _ = charge(0)
        timer?.cancel()
        timer = nil
    }

    /// Gives back what this connection charged to the budget.
    public func handlerRemoved(context: ChannelHandlerContext) {
        releaseAll()
    }

    /// Gives back what this connection charged to the budget.
    public func channelInactive(context: ChannelHandlerContext) {
        releaseAll()
        context.fireChannelInactive()
    }

    private func fail(_ context: ChannelHandlerContext, _ error: FramingError) {
        guard !failed else { return }
        failed = true
        releaseAll()
        context.fireErrorCaught(error)
    }
}
