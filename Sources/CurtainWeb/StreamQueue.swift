/// What one browser's event stream still has to send, when its socket does not take more:
/// events in order, and frames coalesced (a frame replaces a pending frame of the same launch
/// that nothing was queued after, so a stalled browser gets the newest frame, not a backlog).
/// Beyond `limit` bytes of pending events the browser is dropped rather than buffered without
/// end. Pure: the server's stream handler drives it on its channel's event loop.
public struct StreamQueue: Sendable {
    /// Bytes of pending messages a browser may fall behind by before it is dropped.
    public static let defaultLimit = 256 * 1024

    public enum Offer: Equatable, Sendable { case queued, coalesced, overflow }

    struct Entry {
        var bytes: [UInt8]
        var frameOf: Int64?
    }

    public let limit: Int
    var entries: [Entry] = []
    public private(set) var pendingBytes = 0

    public init(limit: Int = Self.defaultLimit) { self.limit = limit }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    /// An event (kept in order); `.overflow` when it would take the queue past the limit: the
    /// caller drops the browser.
    public mutating func offer(event bytes: [UInt8]) -> Offer {
        guard pendingBytes + bytes.count <= limit else { return .overflow }
        entries.append(Entry(bytes: bytes, frameOf: nil))
        pendingBytes += bytes.count
        return .queued
    }

    /// A frame of `launch`: replaces the last entry when that is a frame of the same launch.
    public mutating func offer(frame bytes: [UInt8], launch: Int64) -> Offer {
        if let last = entries.last, last.frameOf == launch {
            let grown = pendingBytes - last.bytes.count + bytes.count
            guard grown <= limit else { return .overflow }
            entries[entries.count - 1].bytes = bytes
            pendingBytes = grown
            return .coalesced
        }
        guard pendingBytes + bytes.count <= limit else { return .overflow }
        entries.append(Entry(bytes: bytes, frameOf: launch))
        pendingBytes += bytes.count
        return .queued
    }

    /// The oldest pending message.
    public mutating func take() -> [UInt8]? {
        guard !entries.isEmpty else { return nil }
        let e = entries.removeFirst()
        pendingBytes -= e.bytes.count
        return e.bytes
    }
}
