import Synchronization
import Varlink

/// One frame as every observer gets it: the typed frame, its JSON (`Wire.frame`) and its
/// reply parameters checked and encoded by the first observer that needs them — not once
/// per observer.
final class SharedFrame: Sendable, Equatable {
    let frame: LaunchFrame
    private let json = Mutex<[String: JSONValue]?>(nil)
    private let encoded = Mutex<VarlinkService.PreparedParameters?>(nil)
    /// The whole message for observers written to directly, by (interned) method.
    private let direct = Mutex<(method: String, message: [UInt8])?>(nil)

    init(_ frame: LaunchFrame) { self.frame = frame }

    /// The frame as io.curtain.Launcher's event object; built once.
    var event: [String: JSONValue] {
        if let cached = json.withLock({ $0 }) { return cached }
        let event = Wire.frame(frame)
        json.withLock { $0 = event }
        return event
    }

    /// `{"event": …}` prepared for `reply`'s method (Watch); cached for the next observer.
    func prepared(for reply: VarlinkService.Reply) throws -> VarlinkService.PreparedParameters {
        try prepared(by: reply.preparer)
    }

    private func prepared(by preparer: VarlinkService.ReplyPreparer) throws -> VarlinkService.PreparedParameters {
        if let cached = encoded.withLock({ $0 }), cached.method == preparer.method { return cached }
        let prepared = try preparer.prepare(["event": .object(event)])
        encoded.withLock { $0 = prepared }
        return prepared
    }

    /// The whole reply message (continues: true) for observers written to directly. `method`
    /// is `reply.method`, interned by the caller (`SharedFrame.interned`): equal to the cached
    /// one by identity, it is not compared byte by byte for each of 1000 observers.
    func message(for reply: VarlinkService.Reply, method: String) throws -> [UInt8] {
        try message(by: reply.preparer, method: method)
    }

    private func message(by preparer: VarlinkService.ReplyPreparer, method: String) throws -> [UInt8] {
        if let message = direct.withLock({ $0?.method == method ? $0?.message : nil }) { return message }
        let message = try prepared(by: preparer).message(continues: true)
        direct.withLock { $0 = (method, message) }
        return message
    }

    /// Encodes the frame now, before its deadline, as the first Watch observer would at it: its
    /// event, its parameters checked and encoded by `preparer` (Watch's), and the whole message.
    /// A frame that fails to encode is left to its observers, which skip it.
    func prepare(with preparer: VarlinkService.ReplyPreparer) {
        _ = try? message(by: preparer, method: Self.interned(preparer.method))
    }

    static func == (a: SharedFrame, b: SharedFrame) -> Bool { a.frame == b.frame }

    /// The streaming method whose replies are shared, as one string every observer's sink
    /// holds (a call's method is parsed from its own message: equal, but not identical).
    static let watchMethod = "io.curtain.Launcher.Watch"
    static func interned(_ method: String) -> String { method == watchMethod ? watchMethod : method }
}

/// A state event (or a destination change) as every Watch observer written to directly gets
/// it: its reply message encoded by the first observer that needs it, not once per observer.
final class SharedEvent: Sendable {
    let event: LaunchEvent
    private let encoded = Mutex<(method: String, message: [UInt8])?>(nil)

    init(_ event: LaunchEvent) { self.event = event }

    /// The whole reply message `{"event": …}` (continues: true) for `reply`'s method (`method`,
    /// interned as for `SharedFrame.message`).
    func message(for reply: VarlinkService.Reply, method: String) throws -> [UInt8] {
        if let message = encoded.withLock({ $0?.method == method ? $0?.message : nil }) { return message }
        let message = try reply.prepare(["event": .object(Wire.event(event))]).message(continues: true)
        encoded.withLock { $0 = (method, message) }
        return message
    }
}
