import Synchronization

/// One observer's replies waiting to be written, in order. State events are never dropped:
/// when more than `limit` wait, the mailbox overflows and the observer is cut off instead.
/// Frames are coalesced: a frame that would queue right behind another frame replaces it, so
/// a stalled observer holds at most one frame between two events — memory stays bounded
/// however long it stalls.
///
/// With a sink attached (a Watch whose connection gave it the socket), an item posted while the
/// stream waits with nothing queued is written by the sink at once, on the posting thread, and
/// never queued: the stream then holds nothing in flight, so nothing can overtake it.
final class ObserverMailbox: Sendable {
    enum Item: Sendable, Equatable {
        case event(LaunchEvent)
        case frame(SharedFrame)
    }

    /// What a sink did with an item.
    enum Delivery: Sendable {
        /// Written (or queued on the socket, in order).
        case taken
        /// Not for the sink: the stream sends it.
        case refused
        /// Written as the call's final reply: the mailbox closes, and the stream ends without
        /// a reply of its own (`finished`). The last event of a launch a call follows, written
        /// on the publishing thread like every one before it — no hop to the stream's event
        /// loop between a launch's end and its caller (issue 18).
        case finished
        /// The connection takes no more, or too much waits on it: the observer must go.
        case cutOff
    }

    /// Writes an item straight to the observer's connection; `shared` carries an event's
    /// encoding for every observer.
    typealias Sink = @Sendable (Item, SharedEvent?) -> Delivery

    private struct State {
        var items: [Item] = []
        var head = 0
        var events = 0
        var closed = false
        var overflowed = false
        var finished = false
        var waiter: CheckedContinuation<Item?, Never>? { didSet { waiting = waiter != nil } }
        /// `waiter != nil`, read for every frame without copying the continuation out.
        var waiting = false
        var sink: Sink?
        var pending: ArraySlice<Item> { items[head...] }
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// From now on items go to `sink` whenever the stream waits with nothing queued.
    func attach(_ sink: @escaping Sink) {
        state.withLock { $0.sink = sink }
    }

    /// Adds `item`; false once the mailbox has overflowed or closed (the observer must go).
    @discardableResult
    func post(_ item: Item, shared: SharedEvent? = nil) -> Bool {
        let (accepted, waiter, handed): (Bool, CheckedContinuation<Item?, Never>?, Item?) = state.withLock { s in
            if s.closed || s.overflowed { return (false, nil, nil) }
            if s.waiting, s.head == s.items.count, let sink = s.sink {
                switch sink(item, shared) {
                case .taken: return (true, nil, nil)
                case .finished:
                    s.closed = true
                    s.finished = true
                    defer { s.waiter = nil }
                    return (true, s.waiter, nil)
                case .cutOff:
                    s.overflowed = true
                    defer { s.waiter = nil }
                    return (false, s.waiter, nil)
                case .refused: break
                }
            }
            if let waiter = s.waiter {
                s.waiter = nil
                return (true, waiter, item)
            }
            switch item {
            case .frame:
                if case .frame = s.items.last, s.items.count > s.head {
                    s.items[s.items.count - 1] = item
                    return (true, nil, nil)
                }
            case .event:
                if s.events >= limit {
                    s.overflowed = true
                    return (false, nil, nil)
                }
                s.events += 1
            }
            s.items.append(item)
            return (true, nil, nil)
        }
        waiter?.resume(returning: handed)
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
                    if s.head == s.items.count {
                        s.items.removeAll(keepingCapacity: true)
                        s.head = 0
                    }
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

    /// Whether the sink wrote the call's final reply (`Delivery.finished`).
    var finished: Bool { state.withLock { $0.finished } }

    /// Whether the next item goes straight to the sink: one is attached and the stream waits
    /// with nothing queued (for tests).
    var writesDirectly: Bool { state.withLock { $0.sink != nil && $0.waiter != nil && $0.head == $0.items.count } }

    /// Items waiting (for tests and statistics).
    var count: Int { state.withLock { $0.items.count - $0.head } }
}
