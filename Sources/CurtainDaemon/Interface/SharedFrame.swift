import Synchronization
import Varlink

/// One frame as every observer gets it: the typed frame, its JSON (`Wire.frame`) and its
/// reply parameters checked and encoded by the first observer that needs them — not once
/// per observer.
final class SharedFrame: Sendable, Equatable {
    let frame: LaunchFrame
    private let json = Mutex<[String: JSONValue]?>(nil)
    private let encoded = Mutex<(prepared: VarlinkService.PreparedParameters, message: [UInt8]?)?>(nil)

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
        if let cached = encoded.withLock({ $0 }), cached.prepared.method == reply.method { return cached.prepared }
        let prepared = try reply.prepare(["event": .object(event)])
        encoded.withLock { $0 = (prepared, nil) }
        return prepared
    }

    /// The whole reply message (continues: true) for observers written to directly.
    func message(for reply: VarlinkService.Reply) throws -> [UInt8] {
        if let cached = encoded.withLock({ $0 }), cached.prepared.method == reply.method, let message = cached.message {
            return message
        }
        let prepared = try prepared(for: reply)
        let message = prepared.message(continues: true)
        encoded.withLock { $0 = (prepared, message) }
        return message
    }

    static func == (a: SharedFrame, b: SharedFrame) -> Bool { a.frame == b.frame }
}

/// A state event (or a destination change) as every Watch observer written to directly gets
/// it: its reply message encoded by the first observer that needs it, not once per observer.
final class SharedEvent: Sendable {
    let event: LaunchEvent
    private let encoded = Mutex<(method: String, message: [UInt8])?>(nil)

    init(_ event: LaunchEvent) { self.event = event }

    /// The whole reply message `{"event": …}` (continues: true) for `reply`'s method.
    func message(for reply: VarlinkService.Reply) throws -> [UInt8] {
        if let cached = encoded.withLock({ $0 }), cached.method == reply.method { return cached.message }
        let message = try reply.prepare(["event": .object(Wire.event(event))]).message(continues: true)
        encoded.withLock { $0 = (reply.method, message) }
        return message
    }
}
