import Logging

/// Every kind of event curtaind logs, each with a stable journal MESSAGE_ID and an entry in
/// units/curtain.catalog (`journalctl -x` shows it). The IDs never change once released:
/// tooling filters on them (`journalctl MESSAGE_ID=…`).
public enum LogEvent: String, CaseIterable, Sendable {
    case daemonReady = "60ebd8bd01f54d54a6ed4d390b46bac0"
    case daemonStopping = "388b538d87e8484a8f9d10670279eee3"
    case configurationReloaded = "0898c33be61e4e319167a81ba12ebc50"
    case reloadRefused = "dae9809f040645f78092552da4056c79"
    case configurationInvalid = "7425a95835224c298ee65f65d2d03c9b"
    case launchRequested = "d93f0925984c4bb092246403156965b3"
    case launchPresented = "a007cbae682946a49877ffba23c0e7b4"
    case appReady = "cac0f2777016499d8de6da6f88ced679"
    case launchRevealed = "cf795f9b50234629b2eaf0f5674a598f"
    case launchFailed = "10727148c9a54008ada5a06271763fe2"
    case launchCancelled = "a8c1295b3cb34240b7efcf21db95b3f5"
    case appExited = "f21edca4024d4fb7a95c5c35f8fd3960"
    case launchInterrupted = "dbd0bf4b94504b9d85af242e46a369b0"
    case leftoversStopped = "bcf0c41e8f9841da91609897571ee141"

    public var messageID: String { rawValue }

    /// The level each event is logged at.
    public var level: Logger.Level {
        switch self {
        case .daemonReady, .daemonStopping, .configurationReloaded, .launchRevealed: return .notice
        case .reloadRefused, .launchCancelled, .appExited, .leftoversStopped: return .warning
        case .configurationInvalid, .launchFailed, .launchInterrupted: return .error
        case .launchRequested, .launchPresented, .appReady: return .info
        }
    }
}

extension Logger {
    /// Logs `event` with its MESSAGE_ID; `metadata` keys become journal fields (CURTAIN_…).
    public func log(
        _ event: LogEvent,
        _ message: @autoclosure () -> Logger.Message,
        _ metadata: Logger.Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        var fields = metadata
        fields["message_id"] = .string(event.messageID)
        log(level: event.level, message(), metadata: fields, file: file, function: function, line: line)
    }
}
