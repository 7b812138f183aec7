import NIOCore
import NIOPosix
import Synchronization
import Varlink

/// A client connection to a Varlink service on a Unix socket.
///
/// Calls may be issued from many tasks at once: they are written in the order they are made
/// and their replies matched in that order (Varlink answers calls on a connection in order),
/// so a caller can pipeline without waiting for each reply.
///
/// ```swift
/// try await VarlinkConnection.withConnection(to: "/run/curtain/io.curtain.Launcher") { connection in
///     let info = try await connection.call("org.varlink.service.GetInfo")
///     for try await event in connection.callMore("io.curtain.Launcher.Watch") { … }
/// }
/// ```
public final class VarlinkConnection: Sendable {
    /// Limits of a client connection.
    public struct Configuration: Sendable {
        /// Largest reply accepted, in bytes (16 MiB, as a server's default); a larger one ends the
        /// connection and fails the calls waiting on it.
        public var maximumMessageSize = 16 * 1024 * 1024
        /// The defaults above.
        public init() {}
    }

    /// Why a call got no reply, besides the transport's own errors.
    public enum ConnectionError: Error, Equatable, CustomStringConvertible {
        /// The connection was closed, by either side, before the reply arrived.
        case closed
        /// The service sent a reply when no call was waiting for one; the connection is ended.
        case unexpectedReply
        /// A sentence for logs and command-line errors.
        public var description: String {
            switch self {
            case .closed: "the connection closed before the reply arrived"
            case .unexpectedReply: "the service sent a reply to no call"
            }
        }
    }

    private typealias Replies = AsyncThrowingStream<VarlinkReply, any Error>

    private struct State {
        var pending: [Replies.Continuation] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let outgoing: AsyncStream<ByteBuffer>.Continuation

    private init(outgoing: AsyncStream<ByteBuffer>.Continuation) {
        self.outgoing = outgoing
    }

    /// Connects, runs `body` with the connection, and closes it when `body` returns.
    /// - Parameters:
    ///   - path: The service's socket file.
    ///   - configuration: Limits of the connection.
    ///   - group: The event loops the connection runs on.
    ///   - body: Works with the connection, which must not outlive it: calls still waiting when
    ///     it returns fail.
    /// - Throws: What connecting throws (no such socket, connection refused), or what `body` throws.
    public static func withConnection<Result: Sendable>(
        to path: String,
        configuration: Configuration = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        _ body: (VarlinkConnection) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: group).connect(unixDomainSocketPath: path) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    VarlinkFramingHandler(maximumMessageSize: configuration.maximumMessageSize, messageTimeout: nil)
                )
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        return try await channel.executeThenClose { inbound, outbound in
            let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
            let connection = VarlinkConnection(outgoing: continuation)
            // Reading and writing run on the channel's event loop: one thread hop fewer per call.
            let executor = EventLoopTaskExecutor(channel.channel.eventLoop)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: executor) {
                    for await bytes in stream { try await outbound.write(bytes) }
                }
                group.addTask(executorPreference: executor) {
                    defer { connection.closeAll(with: ConnectionError.closed) }
                    do {
                        for try await message in inbound { try connection.receive(message) }
                    } catch {
                        connection.closeAll(with: error)
                    }
                }
                defer {
                    continuation.finish()
                    group.cancelAll()
                }
                return try await body(connection)
            }
        }
    }

    /// Calls a method and returns its reply's parameters; an error reply throws `VarlinkError`.
    public func call(_ method: String, _ parameters: [String: JSONValue] = [:]) async throws -> [String: JSONValue] {
        for try await reply in send(VarlinkCall(method: method, parameters: parameters)) {
            if let error = reply.error { throw VarlinkError(error, reply.parameters) }
            return reply.parameters
        }
        throw ConnectionError.closed
    }

    /// Calls a method with `more: true`: every reply until the one without `continues`.
    public func callMore(
        _ method: String,
        _ parameters: [String: JSONValue] = [:]
    ) -> AsyncThrowingStream<[String: JSONValue], any Error> {
        let replies = send(VarlinkCall(method: method, parameters: parameters, more: true))
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await reply in replies {
                        if let error = reply.error { throw VarlinkError(error, reply.parameters) }
                        continuation.yield(reply.parameters)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Calls a method with `oneway: true`: no reply comes.
    public func oneway(_ method: String, _ parameters: [String: JSONValue] = [:]) throws {
        let bytes = ByteBuffer(bytes: VarlinkCall(method: method, parameters: parameters, oneway: true).encoded())
        try state.withLock { state in
            if state.closed { throw ConnectionError.closed }
            outgoing.yield(bytes)
        }
    }

    /// Typed call: encodes `input`, decodes the reply as `Output`.
    public func call<Input: Encodable, Output: Decodable>(
        _ method: String,
        _ input: Input,
        as: Output.Type = Output.self
    ) async throws -> Output {
        let parameters = try TypedJSON.object(input)
        return try TypedJSON.decode(Output.self, try await call(method, parameters))
    }

    /// Writes a call and registers for its replies, in one step so order is kept.
    private func send(_ call: VarlinkCall) -> Replies {
        let (replies, continuation) = Replies.makeStream()
        let bytes = ByteBuffer(bytes: call.encoded())
        state.withLock { state in
            if state.closed {
                continuation.finish(throwing: ConnectionError.closed)
                return
            }
            state.pending.append(continuation)
            outgoing.yield(bytes)
        }
        return replies
    }

    private func receive(_ message: ByteBuffer) throws {
        let reply = try VarlinkReply(decoding: message.readableBytesView)
        try state.withLock { state in
            guard let first = state.pending.first else { throw ConnectionError.unexpectedReply }
            first.yield(reply)
            if !reply.continues || reply.error != nil {
                first.finish()
                state.pending.removeFirst()
            }
        }
    }

    private func closeAll(with error: any Error) {
        let pending = state.withLock { state in
            state.closed = true
            defer { state.pending = [] }
            return state.pending
        }
        for continuation in pending { continuation.finish(throwing: error) }
    }
}
