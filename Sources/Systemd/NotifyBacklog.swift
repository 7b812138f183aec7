#if canImport(Glibc)
import Glibc
#endif

/// What the notify receiver holds between reading a datagram and handing it out: a queue per
/// sender (the kernel's pid), bounded per sender and in total, handed out round-robin. One
/// sender's flood therefore costs only that sender: when a limit is reached, the datagram
/// dropped is the flooder's (the sender with the most queued), and within a sender a
/// state-changing message (READY, STOPPING, ERRNO, …) is kept before a STATUS-only one.
/// Pure: no IO, no clock.
///
/// Numbering. Every datagram added gets the next number (1, 2, 3, …: `added` is the last),
/// dropped ones too. What `next` hands out comes with `through`: every datagram numbered up to
/// it has been handed out — with or before this one — or dropped. It never decreases, and once
/// nothing numbered up to n is queued, the next datagram handed out carries at least n (a drop
/// happens only when the backlog is full, so another hand-out always follows). A consumer that
/// has handled a datagram carrying `through >= n` has handled every datagram numbered up to
/// n that was not dropped, whatever order the senders were served in.
public struct NotifyBacklog<Element> {
    /// A sender may have this many queued; more drops from its own queue.
    public let perSender: Int
    /// All senders together may have this many queued; more drops from the sender with the most.
    public let total: Int

    struct Entry {
        let number: UInt64
        let element: Element
        /// State-changing: dropped only when a sender has nothing else queued to give up.
        let keep: Bool
    }

    /// Non-empty queues only, oldest first.
    private var queues: [pid_t: [Entry]] = [:]
    /// The senders with something queued, in the order they are served next.
    private var ring: [pid_t] = []
    public private(set) var count = 0
    /// The number of the last datagram added.
    public private(set) var added: UInt64 = 0

    public init(perSender: Int, total: Int) {
        precondition(perSender >= 1 && total >= perSender, "a backlog needs room for one sender's datagram")
        self.perSender = perSender
        self.total = total
    }

    public struct Dropped {
        public let sender: pid_t
        public let element: Element
        /// Whether it changed state (READY, STOPPING, …) — lost only to its own sender's flood.
        public let changedState: Bool
    }

    /// Queues `element` from `sender`; returns what had to be dropped for it (possibly itself).
    public mutating func add(_ element: Element, from sender: pid_t, changesState: Bool) -> Dropped? {
        added += 1
        let entry = Entry(number: added, element: element, keep: changesState)
        let own = queues[sender]?.count ?? 0
        if own >= perSender { return makeRoom(in: sender, for: entry) }
        if count >= total {
            // The flooder gives way: the other sender with the most queued, unless this one
            // already has more than every other (ties favour the sender of the new datagram).
            var flooder: (sender: pid_t, count: Int)?
            for (other, queue) in queues where other != sender && queue.count > (flooder?.count ?? 0) {
                flooder = (other, queue.count)
            }
            guard let flooder, flooder.count >= own else { return makeRoom(in: sender, for: entry) }
            let dropped = remove(from: flooder.sender)
            append(entry, from: sender)
            return dropped
        }
        append(entry, from: sender)
        return nil
    }

    /// The next datagram, round-robin over the senders, and how far everything has gone (see
    /// the type's comment).
    public mutating func next() -> (element: Element, number: UInt64, through: UInt64)? {
        guard !ring.isEmpty else { return nil }
        let sender = ring.removeFirst()
        var queue = queues[sender]!
        let entry = queue.removeFirst()
        count -= 1
        if queue.isEmpty {
            queues[sender] = nil
        } else {
            queues[sender] = queue
            ring.append(sender)
        }
        // Queues are in number order, so the oldest left is at the head of one of them.
        let oldest = queues.values.lazy.map { $0[0].number }.min()
        return (entry.element, entry.number, oldest.map { $0 - 1 } ?? added)
    }

    private mutating func append(_ entry: Entry, from sender: pid_t) {
        if queues[sender] == nil { ring.append(sender) }
        queues[sender, default: []].append(entry)
        count += 1
    }

    /// Within one sender: the oldest STATUS-only message goes (a newer one follows it, so the
    /// latest status survives); if every queued one changes state, the new one goes when it
    /// does not, else the oldest (the latest state wins).
    private mutating func makeRoom(in sender: pid_t, for entry: Entry) -> Dropped? {
        guard let queue = queues[sender], !queue.isEmpty else {
            append(entry, from: sender)
            return nil
        }
        if !entry.keep, !queue.contains(where: { !$0.keep }) {
            return Dropped(sender: sender, element: entry.element, changedState: false)
        }
        let dropped = remove(from: sender)
        append(entry, from: sender)
        return dropped
    }

    /// Drops `sender`'s oldest STATUS-only message, or its oldest one if all change state.
    private mutating func remove(from sender: pid_t) -> Dropped? {
        guard var queue = queues[sender], !queue.isEmpty else { return nil }
        let index = queue.firstIndex(where: { !$0.keep }) ?? queue.startIndex
        let entry = queue.remove(at: index)
        count -= 1
        if queue.isEmpty {
            queues[sender] = nil
            ring.removeAll { $0 == sender }
        } else {
            queues[sender] = queue
        }
        return Dropped(sender: sender, element: entry.element, changedState: entry.keep)
    }
}
