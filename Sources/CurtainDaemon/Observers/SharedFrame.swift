import Synchronization
import Varlink

/// One frame as every observer gets it: the event, and its reply parameters checked and
/// encoded by the first observer that sends it — not once per observer.
final class SharedFrame: Sendable, Equatable {
    let event: [String: JSONValue]
    private let encoded = Mutex<VarlinkService.PreparedParameters?>(nil)

    init(_ event: [String: JSONValue]) { self.event = event }

    /// `{"event": …}` prepared for `reply`'s method (Watch); cached for the next observer.
    func prepared(for reply: VarlinkService.Reply) throws -> VarlinkService.PreparedParameters {
        if let cached = encoded.withLock({ $0 }), cached.method == reply.method { return cached }
        let prepared = try reply.prepare(["event": .object(event)])
        encoded.withLock { $0 = prepared }
        return prepared
    }

    static func == (a: SharedFrame, b: SharedFrame) -> Bool { a.event == b.event }
}

/// When the reply in flight to one observer started, for its grace-period watchdog.
final class SendTimer: Sendable {
    private let started = Mutex<ContinuousClock.Instant?>(nil)

    func start() { started.withLock { $0 = .now } }
    func stop() { started.withLock { $0 = nil } }

    func sending(longerThan seconds: Double) -> Bool {
        started.withLock { $0.map { ContinuousClock.now - $0 > .seconds(seconds) } ?? false }
    }
}
