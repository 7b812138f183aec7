import NIOCore

/// Splits the byte stream into Varlink messages (JSON terminated by NUL) and enforces the two
/// limits that protect the server from one bad peer: a maximum message size, and a time limit
/// for a message that has begun but never completes (slowloris).
public final class VarlinkFramingHandler: ChannelInboundHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    public enum FramingError: Error, Equatable {
        case messageTooLarge(limit: Int)
        case incompleteMessage(timeout: TimeAmount)
    }

    private let maximumMessageSize: Int
    private let messageTimeout: TimeAmount?
    private var buffer: ByteBuffer?
    private var timer: Scheduled<Void>?
    private var failed = false

    public init(maximumMessageSize: Int, messageTimeout: TimeAmount?) {
        self.maximumMessageSize = maximumMessageSize
        self.messageTimeout = messageTimeout
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var incoming = unwrapInboundIn(data)
        if buffer == nil { buffer = incoming } else { buffer!.writeBuffer(&incoming) }

        var completed = false
        while let nul = buffer!.readableBytesView.firstIndex(of: 0) {
            let length = nul - buffer!.readerIndex
            guard length <= maximumMessageSize else { return fail(context, .messageTooLarge(limit: maximumMessageSize)) }
            let message = buffer!.readSlice(length: length)!
            buffer!.moveReaderIndex(forwardBy: 1)
            completed = true
            context.fireChannelRead(wrapInboundOut(message))
            if failed { return }
        }
        if buffer!.readableBytes > maximumMessageSize { return fail(context, .messageTooLarge(limit: maximumMessageSize)) }

        if buffer!.readableBytes == 0 {
            buffer = nil
            timer?.cancel()
            timer = nil
        } else {
            if buffer!.readerIndex > 64 * 1024 { buffer!.discardReadBytes() }
            // A partial message: its clock starts now, or restarts if another one completed.
            if completed { timer?.cancel(); timer = nil }
            if timer == nil, let messageTimeout {
                timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: messageTimeout) { [weak self] in
                    guard let self else { return }
                    self.fail(context, .incompleteMessage(timeout: messageTimeout))
                }
            }
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    public func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    private func fail(_ context: ChannelHandlerContext, _ error: FramingError) {
        guard !failed else { return }
        failed = true
        buffer = nil
        timer?.cancel()
        timer = nil
        context.fireErrorCaught(error)
    }
}
