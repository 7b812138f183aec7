/// A deep link taken apart: scheme, host, path segments and query items, each percent-decoded
/// exactly once, after splitting — so an encoded slash (`%2F`) stays inside its segment.
public struct DeepLink: Sendable, Hashable {
    /// Lower-cased.
    public let scheme: String
    /// Lower-cased; empty for `scheme:/path` or `scheme:path` links.
    public let host: String
    /// Decoded segments. One trailing slash is ignored (`/a/` ≡ `/a`); other empty segments
    /// (`/a//b`) are kept, as empty strings.
    public let segments: [String]
    /// Decoded query items in order (a name may repeat). `+` is kept literally: deep links are
    /// RFC 3986 URLs, not HTML form data.
    public let query: [(name: String, value: String)]
    /// The text the link was parsed from.
    public let text: String

    /// Longest accepted link, in bytes.
    public static let maximumLength = 8 * 1024

    /// Links are equal when their texts are: the parts follow from the text.
    public static func == (a: DeepLink, b: DeepLink) -> Bool { a.text == b.text }
    /// Hashes the text, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Takes `text` apart as an RFC 3986 URL; the fragment is dropped (it never routes).
    /// - Throws: `RouteError.tooLong` beyond `maximumLength` bytes; `RouteError.invalidURL` for a
    ///   missing or invalid scheme, a `%` not followed by two hex digits, or escapes that do not
    ///   decode to UTF-8.
    public init(parsing text: String) throws(RouteError) {
        guard text.utf8.count <= Self.maximumLength else {
            throw .tooLong(what: "deep link", length: text.utf8.count, limit: Self.maximumLength)
        }
        self.text = text
        guard let colon = text.firstIndex(of: ":") else { throw .invalidURL(text, "it has no scheme (e.g. shop://…)") }
        let scheme = text[..<colon]
        // RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        let schemeBytes = Array(scheme.utf8)
        func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
        guard let first = schemeBytes.first, isAlpha(first),
            schemeBytes.allSatisfy({
                isAlpha($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "+")
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            })
        else { throw .invalidURL(text, "'\(scheme)' is not a valid scheme") }
        self.scheme = scheme.lowercased()

        var rest = text[text.index(after: colon)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }  // the fragment never routes
        var queryText: Substring = ""
        if let question = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var host = ""
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            host = try Self.decode(rest[..<end], in: text).lowercased()
            rest = rest[end...]
        }
        self.host = host
        var parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        if parts.first == "" { parts.removeFirst() }  // the leading slash
        if parts.last == "" { parts.removeLast() }  // one trailing slash
        var segments: [String] = []
        for part in parts { segments.append(try Self.decode(part, in: text)) }
        self.segments = segments
        var query: [(String, String)] = []
        for item in queryText.split(separator: "&", omittingEmptySubsequences: true) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query.append((try Self.decode(pair[0], in: text), pair.count > 1 ? try Self.decode(pair[1], in: text) : ""))
        }
        self.query = query
    }

    /// The value of the first query item called `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Percent-decoding, once; the result must be valid UTF-8.
    static func decode(_ part: Substring, in text: String) throws(RouteError) -> String {
        guard part.contains("%") else { return String(part) }
        var bytes: [UInt8] = []
        var iterator = Array(part.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard iterator.count >= 2, let high = hexValue(iterator.removeFirst()),
                let low = hexValue(iterator.removeFirst())
            else {
                throw .invalidURL(text, "'\(part)' has a '%' that is not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .invalidURL(text, "'\(part)' does not decode to valid UTF-8")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
