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

    private let observers = Mutex<[Int: Observer]>([:])
    private let nextID = Atomic<Int>(0)

    var count: Int { observers.withLock { $0.count } }

    /// Registers an observer; remove it with `remove` when its stream ends.
    func add(_ filter: Filter, limit: Int) -> (id: Int, mailbox: ObserverMailbox) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let mailbox = ObserverMailbox(limit: limit)
        observers.withLock { $0[id] = Observer(filter: filter, mailbox: mailbox) }
        return (id, mailbox)
    }

    func remove(_ id: Int) {
        observers.withLock { $0.removeValue(forKey: id) }?.mailbox.close()
    }

    /// An event that is not a frame (frames go through `publish(_: LaunchFrame)`).
    func publish(_ event: LaunchEvent) {
        if case .frame(let frame) = event { return publish(frame) }
        let launch = event.launch.value
        let targets = observers.withLock { o in
            o.values.filter { $0.wants(launch: launch, frameIndex: nil) }.map(\.mailbox)
        }
        // One that overflows is cut off by its own stream (ObserverTooSlow).
        let shared = SharedEvent(event)
        targets.forEach { $0.post(.event(event), shared: shared) }
    }

    /// A frame: encoded once (`SharedFrame`), then one loop over the observers on this
    /// thread — written to the socket of each that waits with nothing queued (its mailbox's
    /// sink), queued for the others. A final frame (the reveal's end state) reaches every
    /// frame observer, whatever rate it asked for.
    func publish(_ frame: LaunchFrame) {
        let launch = frame.launch.value
        let index = frame.final ? 0 : frame.index
        let item = ObserverMailbox.Item.frame(SharedFrame(frame))
        let targets = observers.withLock { o in
            o.values.filter { $0.wants(launch: launch, frameIndex: index) }.map(\.mailbox)
        }
        targets.forEach { $0.post(item) }
    }

    /// The launch ended: observers of only that launch get their last event and finish.
    func finish(launch: LaunchID) {
        let done = observers.withLock { o in o.filter { $0.value.filter.launch == launch.value }.map(\.value.mailbox) }
        done.forEach { $0.close() }
    }

    /// Shutdown: every stream finishes after what is queued.
    func closeAll() {
        observers.withLock { o in o.values.map(\.mailbox) }.forEach { $0.close() }
    }
}
