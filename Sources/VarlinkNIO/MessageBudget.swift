import Synchronization

/// Bytes of unterminated messages held across all of a server's connections, against one
/// limit: a per-connection limit alone lets many peers together hold connections × 16 MiB.
/// Each framing handler charges what it buffers and gives it back when the message completes
/// or the connection goes away.
public final class MessageBudget: Sendable {
    /// Most bytes all connections may hold in unterminated messages at once.
    public let limit: Int
    private let used = Atomic<Int>(0)

    /// A budget with nothing held yet; one per server, shared by its connections.
    public init(limit: Int) { self.limit = limit }

    /// Bytes held now, by every connection together.
    public var held: Int { used.load(ordering: .relaxed) }

    /// Takes `bytes` more if they fit under the limit; false (nothing taken) otherwise.
    func reserve(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current <= limit - bytes else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current,
                desired: current + bytes,
                ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
    }

    func release(_ bytes: Int) {
        used.subtract(bytes, ordering: .relaxed)
    }
}
