import Logging
import NIOCore
import NIOPosix
import Synchronization
import UnixSockets
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// Serves a `VarlinkService` on a Unix socket.
///
/// `run()` serves until its task is cancelled; then it stops accepting, lets every
/// connection's call in progress finish, closes the connections and removes the socket file it
/// created. Calls on one connection are handled one at a time, in order, so pipelined calls
/// are answered strictly in order.
public final class VarlinkServer: Sendable {
    /// Where the server listens.
    public enum Address: Sendable, Hashable {
        /// Bind this path (a stale socket file left by a dead server is replaced).
        case path(String)
        /// An already listening socket, e.g. from systemd socket activation.
        case listeningDescriptor(Int32)
    }

    /// The server's limits and its socket file's permissions.
    public struct Configuration: Sendable {
        /// Largest message accepted, in bytes (16 MiB, as systemd). A larger one gets an error
        /// reply and the connection is closed.
        public var maximumMessageSize = 16 * 1024 * 1024
        /// Bytes of unterminated messages all connections may hold together (64 MiB: four
        /// messages of the largest size). A connection whose partial message would take the
        /// total past it gets an error reply and is closed; what it held is given back.
        public var maximumBufferedMessageBytes = 64 * 1024 * 1024
        /// Connections open at once, from all peers; one more is closed as soon as it is accepted,
        /// without a reply, and logged.
        public var maximumConnections = 4096
        /// Connections open at once from one user (peers whose credentials cannot be read count as
        /// one user), so one user cannot take all of `maximumConnections`.
        public var maximumConnectionsPerUID = 1024
        /// How long a message may take to arrive once it has begun (nil: for ever).
        public var messageTimeout: TimeAmount? = .seconds(30)
        /// Output buffered per connection (beyond the kernel's socket buffer) before the
        /// server stops producing replies for it. Small on purpose: a peer that keeps up never
        /// fills the socket buffer, so this is only ever held for peers that stall — and a
        /// daemon with 1000 stalled observers holds 1000 of it (1 MiB each was 1 GB; see
        /// BENCHMARKS.md, memory). A larger reply is still written whole.
        public var outputBufferLimit = 16 * 1024
        /// How long a connection cut off by its handler (`Request.disconnect`, e.g. an observer
        /// too slow) stays open for the peer to take the replies queued before the error that
        /// ends it. A peer that takes nothing in this time is closed without that error.
        public var disconnectLinger: TimeAmount = .seconds(5)
        /// Called (on an event loop) when a burst of connections has drained: at least
        /// `burstConnections` were open at once, and the count fell to a quarter of that peak
        /// (curtaind gives free memory back to the kernel then), `drainSettling` later. Nil:
        /// nothing.
        public var onDrained: (@Sendable () -> Void)? = nil
        /// Applied to a socket file the server creates.
        public var socketMode: mode_t = 0o660
        /// Group of a socket file the server creates; nil leaves the group it was created with.
        public var socketGroup: gid_t? = nil
        /// The defaults above.
        public init() {}
    }

    /// What every connection's calls go to.
    public let service: VarlinkService
    /// listen(2)'s backlog when the server binds the socket itself.
    public static let listenBacklog = Int32.max
    /// Where the server listens.
    public let address: Address
    /// Its limits, fixed for the server's life.
    public let configuration: Configuration
    private let group: any EventLoopGroup
    private let logger: Logger
    private let limiter: ConnectionLimiter
    private let budget: MessageBudget
    private let accepted = AcceptedConnections()

    /// Prepares a server; nothing is bound until `run(onListening:)`.
    /// - Parameters:
    ///   - service: Handles the calls.
    ///   - address: A path to bind, or a descriptor already listening.
    ///   - configuration: Limits and socket file permissions.
    ///   - group: The server listens, and its connections run, on one event loop of this group.
    ///   - logger: Refused connections and protocol errors are logged here.
    public init(
        service: VarlinkService,
        address: Address,
        configuration: Configuration = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "varlink.server")
    ) {
        self.service = service
        self.address = address
        self.configuration = configuration
        self.group = group
        self.logger = logger
        limiter = ConnectionLimiter(
            maximumTotal: configuration.maximumConnections,
            maximumPerUID: configuration.maximumConnectionsPerUID
        )
        budget = MessageBudget(limit: configuration.maximumBufferedMessageBytes)
    }

    /// Bytes of unterminated messages the connections hold now (for status lines and tests).
    public var bufferedMessageBytes: Int { budget.held }

    /// How long after a burst drained `onDrained` is called: a connection's serving task
    /// ends (and frees what it held) after its channel has closed.
    public static let drainSettling = TimeAmount.milliseconds(500)

    /// Connections open at once that make a burst (`Configuration.onDrained`).
    public static var burstConnections: Int { ConnectionLimiter.burst }

    /// Open connections now (for status lines and tests).
    public var connectionCount: Int { limiter.total }

    /// Why the server could not listen.
    public enum ServerError: Error, CustomStringConvertible {
        /// Something other than a socket is at the path; it is left alone.
        case notASocket(String)
        /// A server answers on the socket at the path.
        case inUse(String)
        /// A system call failed: what was done, and errno.
        case system(String, Int32)
        /// The path is no Unix socket address (too long, say).
        case address(UnixSocketAddress.AddressError)

        /// A sentence for logs: what failed, where and why.
        public var description: String {
            switch self {
            case .notASocket(let path): "\(path) exists and is not a socket; refusing to replace it"
            case .inUse(let path): "\(path): another server is listening there"
            case .system(let what, let code): "\(what): \(String(cString: strerror(code)))"
            case .address(let error): error.description
            }
        }
    }

    /// Binds, calls `onListening` once connections can be accepted, and serves until cancelled.
    /// - Throws: `ServerError` if the path is taken or the socket file's mode or group cannot be
    ///   set; NIO's error if binding fails.
    public func run(onListening: @Sendable () -> Void = {}) async throws {
        let configuration = self.configuration
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = {
            [limiter, logger, accepted, budget] channel in
            PeerCredentials.of(channel).flatMapThrowing { peer in
                if let refusal = limiter.acquire(uid: peer?.uid ?? UInt32.max) {
                    logger.warning(
                        "connection refused: limit reached",
                        metadata: [
                            "limit":
                                "\(refusal == .total ? "total \(limiter.maximumTotal)" : "per uid \(limiter.maximumPerUID)")",
                            "peer_pid": "\(peer?.pid ?? -1)", "peer_uid": "\(peer?.uid ?? 0)",
                        ]
                    )
                    channel.close(promise: nil)
                    return Connection(channel: nil, peer: peer)
                }
                channel.closeFuture.whenComplete { _ in
                    guard limiter.release(uid: peer?.uid ?? UInt32.max), let onDrained = configuration.onDrained
                    else { return }
                    channel.eventLoop.scheduleTask(in: VarlinkServer.drainSettling) { onDrained() }
                }
                try channel.syncOptions?.setOption(
                    .writeBufferWaterMark,
                    value: .init(low: configuration.outputBufferLimit / 2, high: configuration.outputBufferLimit)
                )
                try channel.pipeline.syncOperations.addHandler(
                    VarlinkFramingHandler(
                        maximumMessageSize: configuration.maximumMessageSize,
                        messageTimeout: configuration.messageTimeout,
                        budget: budget
                    )
                )
                let connection = try accepted.adopt(channel) {
                    try ServerConnection(channel: channel, outputLimit: configuration.outputBufferLimit)
                }
                if connection == nil { channel.close(promise: nil) }
                return Connection(channel: connection, peer: peer)
            }
        }

        // As systemd's sockets (Backlog=SOMAXCONN): the kernel caps it at net.core.somaxconn, and a
        // burst of non-blocking connects is held until the accept loop reaches it, not refused.
        // One loop accepts and serves: a new connection is registered, initialised and served
        // where it was accepted, with no wake-up of another loop in between (each hop cost a new
        // connection's first reply ≈ 10 µs here; spread over two loops, p50 160 → 120 µs).
        // Frames and state events do not pass through it (SocketWriter), so it carries calls only.
        let loop = group.next()
        let bootstrap = ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelOption(.backlog, value: VarlinkServer.listenBacklog)
        let server: NIOAsyncChannel<Connection, Never>
        var createdPath: String? = nil
        let listening: Int32
        switch address {
        case .path(let path):
            try Self.removeStaleSocket(at: path)
            // Bound here rather than by NIO, which refuses paths past 103 bytes (macOS's
            // sun_path) on Linux too: UnixSocketAddress allows all of Linux's 107.
            let fd = try Self.listeningSocket(at: path)
            listening = fd
            createdPath = path
            // The channel owns the descriptor from here on, also when binding fails.
            do { server = try await bootstrap.bind(fd, childChannelInitializer: initializer) } catch {
                unlink(path)
                throw error
            }
            if chmod(path, configuration.socketMode) != 0 { throw ServerError.system("chmod \(path)", errno) }
            if let gid = configuration.socketGroup, chown(path, uid_t.max, gid) != 0 {
                throw ServerError.system("chown \(path)", errno)
            }
        case .listeningDescriptor(let fd):
            listening = fd
            server = try await bootstrap.bind(fd, childChannelInitializer: initializer)
        }
        // NIO adopts a descriptor by listening on it again with its default backlog (128),
        // whatever `.backlog` says: restore ours (Linux updates a listening socket's backlog).
        _ = listen(listening, Self.listenBacklog)
        defer { if let createdPath { unlink(createdPath) } }
        logger.debug("listening", metadata: ["address": "\(address)"])
        onListening()

        // Every accepted channel must be served (NIOAsyncChannel requires it), so the accept
        // loop is not cancelled directly: cancellation closes the listening socket, the loop
        // drains what was already accepted, and then the idle connections are cancelled.
        // The accept loop runs on the listening channel's event loop, where NIO hands over each
        // accepted channel: a connection reaches its serving task without waking a pool thread
        // in between (a new connection's first reply is the latency `curtainctl ping` pays).
        let acceptor = Task(executorPreference: EventLoopTaskExecutor(server.channel.eventLoop)) {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        guard let channel = connection.channel else { continue }
                        let executor = EventLoopTaskExecutor(channel.channel.eventLoop)
                        let isolation = EventLoopIsolation(channel.channel.eventLoop)
                        group.addTask(executorPreference: executor) {
                            await self.serve(channel, peer: connection.peer, executor: executor, on: isolation)
                        }
                    }
                }
                group.cancelAll()
            }
        }
        defer {
            // Connections adopted but never reached by the accept loop: close them properly.
            for connection in accepted.stop() { connection.channel.close(promise: nil) }
        }
        try await withTaskCancellationHandler {
            try await acceptor.value
        } onCancel: {
            server.channel.close(promise: nil)
        }
    }

    struct Connection: Sendable {
        let channel: ServerConnection?
        let peer: PeerCredentials?
    }

    /// One connection: its calls, one at a time, in order.
    /// Runs isolated to `isolation` (the channel's event loop): a message arriving resumes the
    /// loop below on that event loop at once (see `InboundMessages`).
    private func serve(
        _ connection: ServerConnection,
        peer: PeerCredentials?,
        executor: EventLoopTaskExecutor,
        on isolation: isolated EventLoopIsolation
    ) async {
        guard accepted.take(connection) else { return }
        let send: @Sendable (VarlinkReply) async throws -> Void = { reply in try await connection.write(reply.encoded())
        }
        // A call with more may wait for replies for ever (an observer): when the peer hangs
        // up, cancel it, or it would hold its resources until it next had something to send.
        let streams = StreamCanceller()
        connection.channel.closeFuture.whenComplete { _ in streams.peerClosed() }
        do {
            while let message = try await connection.messages.next() {
                connection.consumed()
                let call: VarlinkCall
                do { call = try VarlinkCall(decoding: message.readableBytesView) } catch {
                    logger.notice(
                        "protocol error; closing the connection",
                        metadata: ["error": "\(error)", "peer_pid": "\(peer?.pid ?? -1)"]
                    )
                    try await send(.error(VarlinkServer.protocolErrorName, ["reason": .string("\(error)")]))
                    break
                }
                if Task.isCancelled || connection.isAborted { break }
                let linger = configuration.disconnectLinger
                let abort: @Sendable (VarlinkReply) -> Void = { reply in
                    connection.abort(reply.encoded(), linger: linger)
                }
                if call.more {
                    let service = self.service
                    let direct = connection.directWriter
                    let handler = Task(executorPreference: executor) {
                        await service.handle(call, peer: peer, send: send, disconnect: abort, direct: direct)
                    }
                    streams.running(handler)
                    await withTaskCancellationHandler {
                        await handler.value
                    } onCancel: {
                        handler.cancel()
                    }
                    // If the call took the socket, the next call's replies queue behind its
                    // output on the same writer.
                } else {
                    // Others run to their end even if the peer is gone (oneway calls expect that).
                    await service.handle(call, peer: peer, send: send, disconnect: abort)
                }
            }
        } catch let error as VarlinkFramingHandler.FramingError {
            let reason =
                switch error {
                case .messageTooLarge(let limit): "message larger than \(limit) bytes"
                case .incompleteMessage(let timeout): "message incomplete after \(timeout.nanoseconds / 1_000_000) ms"
                case .budgetExceeded(let limit): "unterminated messages of all connections would exceed \(limit) bytes"
                }
            logger.notice(
                "closing the connection",
                metadata: ["reason": "\(reason)", "peer_pid": "\(peer?.pid ?? -1)"]
            )
            try? await send(.error(VarlinkServer.protocolErrorName, ["reason": .string(reason)]))
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
        if connection.isAborted {
            // Cut off by its handler: the connection closes itself once its last word is out
            // (bounded by disconnectLinger) — at once if the server stops.
            let channel = connection.channel
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        }
        await connection.close()
    }

    /// The error a connection gets before it is closed for breaking the protocol or a limit.
    public static let protocolErrorName = "io.curtain.varlink.ProtocolError"

    /// A stream socket bound to `path` and listening (backlog `listenBacklog`).
    static func listeningSocket(at path: String) throws(ServerError) -> Int32 {
        let address: UnixSocketAddress
        do { address = try UnixSocketAddress(path) } catch { throw .address(error) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        guard address.bind(fd) == 0 else {
            let code = errno
            close(fd)
            throw .system("bind \(path)", code)
        }
        guard listen(fd, listenBacklog) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw .system("listen \(path)", code)
        }
        return fd
    }

    /// Removes a socket file that no server answers on; refuses anything else.
    static func removeStaleSocket(at path: String) throws {
        let address: UnixSocketAddress
        do { address = try UnixSocketAddress(path) } catch { throw ServerError.address(error) }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw ServerError.notASocket(path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError.system("socket", errno) }
        defer { close(fd) }
        if address.connect(fd) == 0 { throw ServerError.inUse(path) }
        guard unlink(path) == 0 || errno == ENOENT else { throw ServerError.system("unlink \(path)", errno) }
    }
}

/// Cancels a connection's running streaming call once its peer has closed the connection.
final class StreamCanceller: Sendable {
    private let state = Mutex<(task: Task<Void, Never>?, closed: Bool)>((nil, false))

    func running(_ task: Task<Void, Never>) {
        let closed = state.withLock { s in
            s.task = task
            return s.closed
        }
        if closed { task.cancel() }
    }

    func peerClosed() {
        state.withLock { s in
            s.closed = true
            return s.task
        }?.cancel()
    }
}
