/// One sd_notify(3) datagram, parsed: newline-separated KEY=VALUE assignments. What Curtain
/// understands is kept; other keys are listed (and ignored) so a log can say what came.
public struct NotifyMessage: Sendable, Hashable {
    public var ready = false
    public var stopping = false
    public var reloading = false
    public var status: String?
    public var errno: Int32?
    /// EXTEND_TIMEOUT_USEC: the sender needs this much longer from now.
    public var extendTimeoutMicroseconds: UInt64?
    public var barrier = false
    /// X_CURTAIN_STAGE: skeleton, content or interactive (checked by the caller).
    public var stage: String?
    /// X_CURTAIN_ELEMENTS: JSON text, element id → frame (checked by the caller).
    public var elements: String?
    public var ignored: [String] = []

    /// Datagrams longer than this are dropped (systemd's own limit is similar).
    public static let maximumSize = 4096

    public enum ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        case empty
        case tooLong(Int)
        case notUTF8
        case notAnAssignment(String)
        case badValue(key: String, value: String)

        public var description: String {
            switch self {
            case .empty: "empty message"
            case .tooLong(let n): "\(n) bytes, more than the limit of \(NotifyMessage.maximumSize)"
            case .notUTF8: "not UTF-8"
            case .notAnAssignment(let line): "'\(line.prefix(80))' is not KEY=VALUE"
            case .badValue(let key, let value): "\(key)='\(value.prefix(80))' is not valid"
            }
        }
    }

    public init(parsing bytes: some Collection<UInt8>) throws(ParseError) {
        guard bytes.count <= Self.maximumSize else { throw .tooLong(bytes.count) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard !lines.isEmpty else { throw .empty }
        for line in lines {
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else { throw .notAnAssignment(String(line)) }
            let key = String(line[..<equals]), value = String(line[line.index(after: equals)...])
            switch key {
            case "READY": ready = try Self.flag(key, value)
            case "STOPPING": stopping = try Self.flag(key, value)
            case "RELOADING": reloading = try Self.flag(key, value)
            case "BARRIER": barrier = try Self.flag(key, value)
            case "STATUS": status = value
            case "ERRNO":
                guard let number = Int32(value), number >= 0 else { throw .badValue(key: key, value: value) }
                errno = number
            case "EXTEND_TIMEOUT_USEC":
                guard let usec = UInt64(value) else { throw .badValue(key: key, value: value) }
                extendTimeoutMicroseconds = usec
            case "X_CURTAIN_STAGE": stage = value
            case "X_CURTAIN_ELEMENTS": elements = value
            default: ignored.append(key)
            }
        }
    }

    /// Whether it tells the service manager more than a STATUS: a newer STATUS replaces an
    /// older one, but a READY, STOPPING, ERRNO, … lost is a state never reached.
    public var changesState: Bool {
        ready || stopping || reloading || barrier || errno != nil || extendTimeoutMicroseconds != nil || stage != nil || elements != nil
    }

    /// `changesState` of a received datagram; one that does not parse changes nothing.
    public static func changesState(_ bytes: some Collection<UInt8>) -> Bool {
        (try? NotifyMessage(parsing: bytes))?.changesState ?? false
    }

    private static func flag(_ key: String, _ value: String) throws(ParseError) -> Bool {
        guard value == "1" else { throw .badValue(key: key, value: value) }
        return true
    }
}
