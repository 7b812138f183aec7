import CNotify
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler that writes structured entries to journald, as sd_journal_sendv(3)
/// does, through systemd's documented native protocol (`curtain_journal_send`; libsystemd and
/// the six compression and crypto libraries it brings were 1 MiB of an idle curtaind for this
/// and sd_notify: BENCHMARKS.md, "curtaind's memory"): MESSAGE, PRIORITY, SYSLOG_IDENTIFIER,
/// CODE_FILE/LINE/FUNC, and every metadata key as an upper-case field (`curtain_launch_id` →
/// `CURTAIN_LAUNCH_ID`; `message_id` → `MESSAGE_ID`).
///
/// Without a journal socket it writes one readable line per entry to stderr instead. Sending
/// is a single datagram to journald's socket, whose large receive buffer means a log call
/// does not wait on journald.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    public let identifier: String
    private let useJournal: Bool

    /// journald's native socket; its absence selects the stderr fallback.
    public static let socketPath = "/run/systemd/journal/socket"

    public init(label: String, identifier: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.identifier = identifier
        self.metadataProvider = metadataProvider
        useJournal = access(Self.socketPath, W_OK) == 0
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }

        if useJournal {
            var fields = [
                "MESSAGE=\(event.message)",
                "PRIORITY=\(Self.priority(event.level))",
                "SYSLOG_IDENTIFIER=\(identifier)",
                "CODE_FILE=\(event.file)",
                "CODE_LINE=\(event.line)",
                "CODE_FUNC=\(event.function)",
            ]
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                guard let name = Self.fieldName(key) else { continue }
                fields.append("\(name)=\(value)")
            }
            if Self.send(fields) >= 0 { return }
        }
        // Fallback: `<level> message key=value …`, one line on stderr.
        let pairs = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        var line = "<\(Self.priority(event.level))>\(identifier): \(event.message)\(pairs.isEmpty ? "" : " " + pairs)\n"
        _ = line.withUTF8 { write(2, $0.baseAddress, $0.count) }
    }

    /// syslog priorities, as journald stores them.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A journal field name: upper-case letters, digits and '_' (other characters become '_').
    /// Keys starting with '_' are dropped — those names are journald's trusted fields — as are
    /// keys starting with a digit or longer than 64 bytes.
    static func fieldName(_ key: String) -> String? {
        guard let first = key.first, first != "_", !first.isNumber, key.utf8.count <= 64 else { return nil }
        return String(key.uppercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "_" })
    }

    private static func send(_ fields: [String]) -> Int32 {
        var storage = fields.map { Array($0.utf8) }
        var vectors: [iovec] = []
        vectors.reserveCapacity(storage.count)
        for index in storage.indices {
            storage[index].withUnsafeMutableBytes { vectors.append(iovec(iov_base: $0.baseAddress, iov_len: $0.count)) }
        }
        // The pointers stay valid: `storage` is not mutated again before the call returns.
        return withExtendedLifetime(storage) { curtain_journal_send(socketPath, vectors, Int32(vectors.count)) }
    }
}
