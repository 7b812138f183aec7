import Synchronization

/// When the reply in flight to one observer started, for its grace-period watchdog.
final class SendTimer: Sendable {
    private let started = Mutex<ContinuousClock.Instant?>(nil)

    func start() { started.withLock { $0 = .now } }
    func stop() { started.withLock { $0 = nil } }

    func sending(longerThan seconds: Double) -> Bool {
        started.withLock { $0.map { ContinuousClock.now - $0 > .seconds(seconds) } ?? false }
    }
}
