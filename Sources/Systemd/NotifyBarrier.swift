import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The descriptor a BARRIER=1 sender passed and now waits on (sd_notify_barrier(3),
/// `systemd-notify`): closing it answers the barrier. systemd answers once it has handled the
/// messages sent before it, since it handles each message as it reads it; curtaind reads on one
/// thread and handles on another, so the descriptor travels with the message until the launch
/// driver has applied what came before (issue 18: the app no longer wakes, and takes a CPU,
/// before `revealing` is written). It is closed by `answer()`, or when the last reference goes
/// (a message dropped, rejected, or for an app already gone): never held past the message.
///
/// Held descriptors are bounded (`Budget`: 64 at once for all of a receiver's senders): past
/// it, a barrier is answered as it is read, as before, so a sender passing descriptors in a
/// flood cannot make curtaind hold more than that.
public final class NotifyBarrier: Sendable, Hashable {
    /// How many barriers may wait at once.
    public final class Budget: Sendable {
        public let limit: Int
        fileprivate let held = Atomic(0)
        /// Barriers waiting now.
        public var waiting: Int { held.load(ordering: .relaxed) }
        public init(limit: Int) { self.limit = limit }
    }

    private let descriptor: Atomic<Int32>
    private let budget: Budget

    /// Takes `descriptor` over, or closes it and returns nil when `budget` is spent.
    public static func hold(_ descriptor: Int32, from budget: Budget) -> NotifyBarrier? {
        guard budget.held.add(1, ordering: .acquiringAndReleasing).newValue <= budget.limit else {
            budget.held.subtract(1, ordering: .acquiringAndReleasing)
            close(descriptor)
            return nil
        }
        return NotifyBarrier(descriptor, budget)
    }

    private init(_ descriptor: Int32, _ budget: Budget) {
        self.descriptor = Atomic(descriptor)
        self.budget = budget
    }

    /// Answers the barrier: the sender's wait ends. Once; later calls do nothing.
    public func answer() {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        guard fd >= 0 else { return }
        close(fd)
        budget.held.subtract(1, ordering: .acquiringAndReleasing)
    }

    deinit { answer() }

    public static func == (a: NotifyBarrier, b: NotifyBarrier) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
