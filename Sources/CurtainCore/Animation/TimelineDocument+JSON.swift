import JSON

extension TimelineDocument {
    /// Largest timeline document accepted, in bytes.
    public static let maximumSize = 256 * 1024

    /// Decodes the JSON form, turning decoder errors into a `TimelineError` with a key path.
    /// Parsed by the JSON module and decoded from its tree (`JSONValueDecoder`): no
    /// Foundation in curtaind (BENCHMARKS.md, scenario 5).
    public init(json: some Collection<UInt8>) throws(TimelineError) {
        guard json.count <= Self.maximumSize else {
            throw TimelineError("", "the document is \(json.count) bytes, more than the limit of \(Self.maximumSize)")
        }
        let value: JSONValue
        do { value = try JSONParser.parse(json) } catch {
            throw TimelineError("", "not a timeline document: \(error)")
        }
        do {
            self = try JSONValueDecoder.decode(TimelineDocument.self, from: value)
        } catch let error as DecodingError {
            throw TimelineError.decoding(error)
        } catch {
            throw TimelineError("", "not a timeline document: \(error)")
        }
    }

    /// Pretty, key-sorted JSON: what `curtainctl timeline --source` prints.
    public func json() -> String {
        guard let value = try? JSONValueEncoder.encode(self) else { return "{}" }
        var out = ""
        Self.pretty(value, indent: "", into: &out)
        return out
    }

    /// Two spaces per level, keys in order, one member or element a line.
    private static func pretty(_ value: JSONValue, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch value {
        case .array(let values) where !values.isEmpty:
            out += "[\n"
            for (i, element) in values.enumerated() {
                out += inner
                pretty(element, indent: inner, into: &out)
                out += i + 1 < values.count ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            for (i, key) in object.keys.sorted().enumerated() {
                out += inner + JSONWriter.string(.string(key)) + " : "
                pretty(object[key]!, indent: inner, into: &out)
                out += i + 1 < object.count ? ",\n" : "\n"
            }
            out += indent + "}"
        default:
            out += JSONWriter.string(value)
        }
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
