import FoundationEssentials

extension TimelineDocument {
    /// Largest timeline document accepted, in bytes.
    public static let maximumSize = 256 * 1024

    /// Decodes the JSON form, turning decoder errors into a `TimelineError` with a key path.
    public init(json: some Collection<UInt8>) throws(TimelineError) {
        guard json.count <= Self.maximumSize else {
            throw TimelineError("", "the document is \(json.count) bytes, more than the limit of \(Self.maximumSize)")
        }
        do {
            self = try JSONDecoder().decode(TimelineDocument.self, from: Data(json))
        } catch let error as DecodingError {
            throw TimelineError.decoding(error)
        } catch {
            throw TimelineError("", "not a timeline document: \(error)")
        }
    }

    /// Pretty, key-sorted JSON: what `curtainctl timeline --source` prints.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}

extension TimelineError {
    static func decoding(_ error: DecodingError) -> TimelineError {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            return TimelineError(path(context.codingPath), "missing key '\(key.stringValue)'")
        case .typeMismatch(let type, let context):
            return TimelineError(path(context.codingPath), "expected \(type): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return TimelineError(path(context.codingPath), "expected \(type), found null")
        case .dataCorrupted(let context):
            return TimelineError(path(context.codingPath), context.debugDescription)
        @unknown default:
            return TimelineError("", "\(error)")
        }
    }
}
