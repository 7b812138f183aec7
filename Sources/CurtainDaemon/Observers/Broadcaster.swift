import CurtainCore
import Synchronization
import Varlink

/// Hands every event to the observers that want it, each through its own mailbox, so a slow
/// observer never holds up another or the frame clock.
final class Broadcaster: Sendable {
    /// What one observer wants: one launch or all; frames or only state events; a frame rate
    /// at most the clock's (frames are then decimated by their index).
    struct Filter: Sendable {
        var launch: UInt64?
        var frames: Bool
        var everyNth: Int = 1
    }

    private struct Observer {
        let filter: Filter
        let mailbox: ObserverMailbox

        func wants(launch: UInt64, frameIndex: Int?) -> Bool {
            if let wanted = filter.launch, wanted != launch { return false }
            guard let frameIndex else { return true }
            return filter.frames && frameIndex % filter.everyNth == 0
        }
    }

    /// Every observer, in a list (walked for each frame: no dictionary, no filtered copy) and
    /// by id (for `remove`, which swaps the last one into the gap).
    private struct Registry {
        var list: [Observer] = []
        var index: [Int: Int] = [:]
        var ids: [Int] = []
        /// `list` for the frame loop: filters and unretained mailboxes, nothing to retain or
        /// release per observer and frame (kept alive by `list`, which the loop holds).
        var targets: [Target] = []
    }

    private struct Target {
        let launch: UInt64?
        let frames: Bool
        let everyNth: Int
        let mailbox: Unmanaged<ObserverMailbox>

        init(_ observer: Observer) {
            (launch, frames, everyNth) = (observer.filter.launch, observer.filter.frames, observer.filter.everyNth)
            mailbox = .passUnretained(observer.mailbox)
        }

        func wants(launch wanted: UInt64, frameIndex: Int) -> Bool {
            frames && (launch == nil || launch == wanted) && frameIndex % everyNth == 0
        }
    }

    private let observers = Mutex(Registry())
    private let nextID = Atomic<Int>(0)
    /// Watch's replies, for frames encoded before their deadline (`prepare`); set once the
    /// service exists.
    private let watchReplies = Mutex<VarlinkService.ReplyPreparer?>(nil)

    /// Frames made with `prepare` are encoded with `preparer` (io.curtain.Launcher.Watch's).
    func encodeFrames(with preparer: VarlinkService.ReplyPreparer?) { watchReplies.withLock { $0 = preparer } }

    var count: Int { observers.withLock { $0.list.count } }

    /// Registers an observer; remove it with `remove` when its stream ends.
    func add(_ filter: Filter, limit: Int) -> (id: Int, mailbox: ObserverMailbox) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let mailbox = ObserverMailbox(limit: limit)
        observers.withLock { r in
            r.index[id] = r.list.count
            r.list.append(Observer(filter: filter, mailbox: mailbox))
            r.targets.append(Target(r.list[r.list.count - 1]))
            r.ids.append(id)
        }
        return (id, mailbox)
    }

    func remove(_ id: Int) {
        let removed: ObserverMailbox? = observers.withLock { r in
            guard let at = r.index.removeValue(forKey: id) else { return nil }
            let mailbox = r.list[at].mailbox
            let last = r.list.count - 1
            if at != last {
                r.list.swapAt(at, last)
                r.targets.swapAt(at, last)
                r.ids.swapAt(at, last)
                r.index[r.ids[at]] = at
            }
            r.list.removeLast()
            r.targets.removeLast()
            r.ids.removeLast()
            return mailbox
        }
        removed?.close()
    }

    /// The observers now: the list's storage, shared (copied only if one is added or removed
    /// while the caller walks it).
    private var snapshot: [Observer] { observers.withLock { $0.list } }

    /// An event that is not a frame (frames go through `publish(_: LaunchFrame)`).
    func publish(_ event: LaunchEvent) {
        if case .frame(let frame) = event { return publish(frame) }
        let launch = event.launch.value
        // One that overflows is cut off by its own stream (ObserverTooSlow).
        let shared = SharedEvent(event)
        let item = ObserverMailbox.Item.event(event)
        for observer in snapshot where observer.wants(launch: launch, frameIndex: nil) {
            observer.mailbox.post(item, shared: shared)
        }
    }

    /// Whether an observer wants frame `index` of `launch` now (one worth making ahead).
    func watches(launch: LaunchID, frame index: Int) -> Bool {
        observers.withLock { $0.targets.contains { $0.wants(launch: launch.value, frameIndex: index) } }
    }

    /// A frame made before its deadline, to be published at it (`publish(_: SharedFrame)`):
    /// its event built and its Watch reply encoded now, so that at the deadline only the
    /// writes are left.
    func prepare(_ frame: LaunchFrame) -> SharedFrame {
        let shared = SharedFrame(frame)
        if let preparer = watchReplies.withLock({ $0 }) { shared.prepare(with: preparer) } else { _ = shared.event }
        return shared
    }

    /// A frame: encoded once (`SharedFrame`), then one loop over the observers on this
    /// thread — written to the socket of each that waits with nothing queued (its mailbox's
    /// sink), queued for the others. A final frame (the reveal's end state) reaches every
    /// frame observer, whatever rate it asked for.
    func publish(_ frame: LaunchFrame) { publish(SharedFrame(frame)) }

    /// A frame already shared (made by `prepare`, or by `publish(_: LaunchFrame)`).
    func publish(_ shared: SharedFrame) {
        let frame = shared.frame
        let launch = frame.launch.value
        let index = frame.final ? 0 : frame.index
        let item = ObserverMailbox.Item.frame(shared)
        let (observers, targets) = self.observers.withLock { ($0.list, $0.targets) }
        // `observers` keeps every mailbox alive while the loop uses them unretained.
        withExtendedLifetime(observers) {
            targets.withUnsafeBufferPointer { targets in
                for target in targets where target.wants(launch: launch, frameIndex: index) {
                    _ = target.mailbox._withUnsafeGuaranteedRef { $0.post(item) }
                }
            }
        }
    }

    /// The launch ended: observers of only that launch get their last event and finish.
    func finish(launch: LaunchID) {
        for observer in snapshot where observer.filter.launch == launch.value { observer.mailbox.close() }
    }

    /// Shutdown: every stream finishes after what is queued.
    func closeAll() {
        for observer in snapshot { observer.mailbox.close() }
    }
}
