/// One sd_notify(3) datagram, parsed as systemd's manager parses it: newline-separated
/// KEY=VALUE assignments, the keys sd_notify(3) defines checked and typed, every other one
/// kept as it came in `fields` for the receiver to interpret (an application's own keys, such
/// as Curtain's `X_CURTAIN_*`, are its business, not this parser's).
public struct NotifyMessage: Sendable, Hashable {
    public var ready = false
    public var stopping = false
    public var reloading = false
    public var status: String?
    public var errno: Int32?
    /// EXTEND_TIMEOUT_USEC: the sender needs this much longer from now.
    public var extendTimeoutMicroseconds: UInt64?
    public var barrier = false
    /// Every other assignment (MAINPID, WATCHDOG, an application's own keys, …), unchecked;
    /// a key sent twice has its last value.
    public var fields: [String: String] = [:]

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
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw .notAnAssignment(String(line))
            }
            let key = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
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
            default: fields[key] = value
            }
        }
    }

    /// Whether it tells the receiver more than a STATUS: a newer STATUS replaces an older one,
    /// but a READY, STOPPING, ERRNO, … lost is a state never reached. A key this parser does
    /// not know may be a state to its receiver (Curtain's stages are): it counts as one.
    public var changesState: Bool {
        ready || stopping || reloading || barrier || errno != nil || extendTimeoutMicroseconds != nil || !fields.isEmpty
    }

    private static func flag(_ key: String, _ value: String) throws(ParseError) -> Bool {
        guard value == "1" else { throw .badValue(key: key, value: value) }
        return true
    }
}
