import JSON
import NIOConcurrencyHelpers
import NIOCore

/// Server limits (docs/web.md), each a named default that `curtain-web`'s options may lower.
public struct WebLimits: Sendable {
    /// Browsers streaming at once (`/events`); one more is answered 503.
    public var streamClients = 32
    /// TCP connections at once (streams, page and asset requests); beyond it a connection is closed at once.
    public var connections = 128
    /// Bytes a browser's stream may fall behind by before it is dropped (StreamQueue).
    public var streamBacklogBytes = StreamQueue.defaultLimit
    /// A request's head: the request line's target plus every header name and value, in bytes.
    public var requestHeadBytes = 8192
    /// Seconds a connection may take to send its request's head (a client that trickles it,
    /// or sends nothing, would hold a connection for ever); then it is closed.
    public var requestHeadSeconds = 10.0
    /// Header lines in one request.
    public var requestHeaders = 64
    /// A request's body: none (the server is read-only).
    public var requestBodyBytes = 0
    /// Scene files known at once (each launch's scene; the oldest is forgotten first).
    public var scenes = 16
    /// A replay file (`/replays/NAME`), as `curtainctl render --events` bounds it.
    public var replayBytes = 16 * 1024 * 1024
    /// Launches whose last state a joining browser is told.
    public var recentLaunches = 8
    /// Contents sprites (text and images) kept rasterised (the least recently asked for is dropped first).
    public var sprites = 256
    /// One contents sprite's pixels; a larger one is refused (413).
    public var spritePixels = 2048 * 2048

    public init() {}
}

/// One browser's event stream: its queue lives on its channel's event loop.
final class StreamClient: @unchecked Sendable {
    let channel: Channel
    var queue: StreamQueue
    var dropped = false

    init(channel: Channel, limit: Int) {
        self.channel = channel
        queue = StreamQueue(limit: limit)
    }

    /// On the event loop: queue, then write what the socket takes.
    func offer(_ message: Message) {
        guard !dropped else { return }
        let result =
            message.frameOf.map { queue.offer(frame: message.bytes, launch: $0) } ?? queue.offer(event: message.bytes)
        if result == .overflow {
            // A stalled browser: dropped, not buffered without end. It reconnects when it wakes.
            dropped = true
            channel.close(promise: nil)
            return
        }
        flush()
    }

    func flush() {
        var wrote = false
        while channel.isWritable, let bytes = queue.take() {
            channel.write(HTTPPart.body(.byteBuffer(channel.allocator.buffer(bytes: bytes))), promise: nil)
            wrote = true
        }
        if wrote { channel.flush() }
    }
}

struct Message: Sendable {
    var bytes: [UInt8]
    var frameOf: Int64?

    /// One Server-Sent Event: `event: KIND`, one `data:` line of JSON (JSON has no raw newlines).
    init(_ kind: String, _ value: JSONValue, frameOf: Int64? = nil) {
        bytes = Array("event: \(kind)\ndata: \(JSONWriter.string(value, sortedKeys: true))\n\n".utf8)
        self.frameOf = frameOf
    }
}

/// The streams' registry and what a joining browser is told first: whether curtaind answers
/// and the recent launches (with their scene and last event).
public final class Hub: Sendable {
    struct State {
        var clients: [ObjectIdentifier: StreamClient] = [:]
        var daemon: JSONValue = .object(["connected": false, "reason": "not yet connected"])
        var launches: [(id: Int64, info: JSONValue, last: JSONValue?)] = []
    }
    let state = NIOLockedValueBox(State())
    let limits: WebLimits

    public init(limits: WebLimits) { self.limits = limits }

    public var clientCount: Int { state.withLockedValue { $0.clients.count } }

    /// Registers a stream; false when `limits.streamClients` are streaming already. The
    /// greeting (daemon state, recent launches) is queued before any later message.
    func add(_ client: StreamClient) -> Bool {
        state.withLockedValue { s in
            guard s.clients.count < limits.streamClients else { return false }
            s.clients[ObjectIdentifier(client)] = client
            var greeting = [Message("daemon", s.daemon)]
            for l in s.launches {
                greeting.append(Message("launch", l.info))
                if let last = l.last { greeting.append(Message("event", last)) }
            }
            client.channel.eventLoop.execute { for m in greeting { client.offer(m) } }
            return true
        }
    }

    func remove(_ client: StreamClient) {
        _ = state.withLockedValue { $0.clients.removeValue(forKey: ObjectIdentifier(client)) }
    }

    private func broadcast(_ message: Message, _ update: (inout State) -> Void = { _ in }) {
        let clients = state.withLockedValue { s in
            update(&s)
            return Array(s.clients.values)
        }
        for c in clients { c.channel.eventLoop.execute { c.offer(message) } }
    }

    func daemon(connected: Bool, reason: String) {
        let value: JSONValue = .object(["connected": .bool(connected), "reason": .string(reason)])
        broadcast(Message("daemon", value)) { $0.daemon = value }
    }

    func launch(_ id: Int64, _ info: JSONValue) {
        broadcast(Message("launch", info)) { s in
            s.launches.removeAll { $0.id == id }
            s.launches.append((id, info, nil))
            if s.launches.count > limits.recentLaunches {
                s.launches.removeFirst(s.launches.count - limits.recentLaunches)
            }
        }
    }

    func event(_ id: Int64, _ event: JSONValue) {
        if event["kind"] == .string("frame") {
            broadcast(Message("frame", event, frameOf: id))
        } else {
            broadcast(Message("event", event)) { s in
                if let i = s.launches.firstIndex(where: { $0.id == id }) { s.launches[i].last = event }
            }
        }
    }
}
