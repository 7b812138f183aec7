import Synchronization

/// One observer's replies waiting to be written, in order. State events are never dropped:
/// when more than `limit` wait, the mailbox overflows and the observer is cut off instead.
/// Frames are coalesced: a frame that would queue right behind another frame replaces it, so
/// a stalled observer holds at most one frame between two events — memory stays bounded
/// however long it stalls.
final class ObserverMailbox: Sendable {
    enum Item: Sendable, Equatable {
        case event(LaunchEvent)
        case frame(SharedFrame)
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var events = 0
        var closed = false
        var overflowed = false
        var waiter: CheckedContinuation<Item?, Never>?
        var pending: ArraySlice<Item> { items[head...] }
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// Whether a frame may be written to this observer directly (from its connection's IO
    /// thread) instead of through the mailbox: only while its stream waits with nothing
    /// queued, so a frame can never overtake an event. Call on that IO thread, where the
    /// stream's own writes happen.
    func isIdle() -> Bool {
        state.withLock { s in !s.closed && !s.overflowed && s.waiter != nil && s.head == s.items.count }
    }

    /// Adds `item`; false once the mailbox has overflowed or closed (the observer must go).
    @discardableResult
    func post(_ item: Item) -> Bool {
        let (accepted, waiter): (Bool, CheckedContinuation<Item?, Never>?) = state.withLock { s in
            if s.closed || s.overflowed { return (false, nil) }
            if let waiter = s.waiter {
                s.waiter = nil
                return (true, waiter)
            }
            switch item {
            case .frame:
                if case .frame = s.items.last, s.items.count > s.head { s.items[s.items.count - 1] = item; return (true, nil) }
            case .event:
                if s.events >= limit { s.overflowed = true; return (false, nil) }
                s.events += 1
            }
            s.items.append(item)
            return (true, nil)
        }
        waiter?.resume(returning: item)
        return accepted
    }

    /// The next item, waiting if there is none; nil once closed (after what is queued) or overflowed.
    func next() async -> Item? {
        await withCheckedContinuation { continuation in
            let ready: Item?? = state.withLock { s in
                if s.overflowed { return .some(nil) }
                if s.head < s.items.count {
                    let item = s.items[s.head]
                    s.head += 1
                    if case .event = item { s.events -= 1 }
                    if s.head == s.items.count { s.items.removeAll(keepingCapacity: true); s.head = 0 }
                    return .some(item)
                }
                if s.closed { return .some(nil) }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// No more items will come; the observer finishes what is queued.
    func close() {
        let waiter = state.withLock { s in
            s.closed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    var overflowed: Bool { state.withLock { $0.overflowed } }

    /// Items waiting (for tests and statistics).
    var count: Int { state.withLock { $0.items.count - $0.head } }
}
