import CurtainCore
import JSON
import Systemd

/// What one sd_notify message says about an app, for Curtain: systemd's generic fields
/// (STATUS, ERRNO, EXTEND_TIMEOUT_USEC, READY) and Curtain's own (`X_CURTAIN_STAGE`,
/// `X_CURTAIN_ELEMENTS`), interpreted with no IO — as systemd's manager parses a message and
/// lets the unit it was attributed to interpret it. Both backends use it: a spawned app's
/// messages and a unit's, each once attributed to its launch.
struct AppNotification: Sendable, Equatable {
    /// skeleton, content or interactive: a stage before READY=1.
    static let stageKey = "X_CURTAIN_STAGE"
    /// JSON: element id → frame ({x, y, width, height}), for the reveal.
    static let elementsKey = "X_CURTAIN_ELEMENTS"

    var status: String?
    var errno: Int32?
    /// The elements it reported (X_CURTAIN_ELEMENTS), valid ones only.
    var elements: ReportedElements?
    var extendSeconds: Double?
    /// The stage it reached: READY=1 is `.ready`; X_CURTAIN_STAGE names an earlier one.
    var stage: ReadinessStage?
    /// Parts that were refused, for the log (the rest counts).
    var refused: [String] = []

    init(_ message: NotifyMessage) {
        status = message.status
        errno = message.errno
        extendSeconds = message.extendTimeoutMicroseconds.map { Double($0) / 1_000_000 }
        if let text = message.fields[Self.elementsKey] {
            if let parsed = try? JSONParser.parse(Array(text.utf8)), case .object = parsed,
                let frames = try? ReportedElementsReader.read(parsed)
            {
                elements = frames
            } else {
                refused.append("X_CURTAIN_ELEMENTS dropped: not an object of frames")
            }
        }
        if let name = message.fields[Self.stageKey] {
            // READY=1 is how an app says `ready`: the key names only the stages before it.
            if let parsed = ReadinessStage(rawValue: name), parsed != .ready {
                stage = parsed
            } else {
                refused.append("X_CURTAIN_STAGE='\(name)' ignored: not skeleton, content or interactive")
            }
        }
        if message.ready { stage = .ready }
    }

    /// The events for launch `id`, in the order the driver takes them: the status, the
    /// extension, then the stage with `elements` (those known for the app so far, this
    /// message's included).
    func events(for id: LaunchID, elements known: ReportedElements) -> [AppEvent] {
        var events: [AppEvent] = []
        if let status { events.append(.status(id, status)) }
        if let extendSeconds { events.append(.extend(id, seconds: extendSeconds)) }
        if let stage { events.append(.ready(id, stage, status: status, elements: elements ?? known)) }
        return events
    }
}
