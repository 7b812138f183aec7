/// A deep-link pattern: `shop://product/<int:id>`, `chat://thread/<uuid:thread>`,
/// `docs://<path:page>`. Scheme and host are literal; each path segment is a literal, a
/// placeholder `<name>`, or a typed one `<int:name>`, `<uuid:name>`, `<float:name>`; a final
/// `<path:name>` takes the rest of the path (one or more segments, joined by `/`).
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    /// What a placeholder accepts: any non-empty segment, a 64-bit integer, a UUID, a finite
    /// decimal number, or (last only) the rest of the path.
    public enum PlaceholderType: String, Sendable, Hashable, CaseIterable {
        case string, int, uuid, float, path
    }

    /// One path segment of a pattern.
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case placeholder(name: String, type: PlaceholderType)
    }

    /// Lower-cased.
    public let scheme: String
    /// Lower-cased; always literal.
    public let host: String
    /// The path after the host; a trailing slash adds none.
    public let segments: [Segment]
    /// The pattern as written.
    public let text: String

    /// The pattern as written.
    public var description: String { text }

    /// Literal segments (host included): the second key of precedence.
    public var literalCount: Int { 1 + segments.filter { if case .literal = $0 { true } else { false } }.count }
    /// Typed placeholders: the third key of precedence.
    public var typedCount: Int {
        segments.filter { if case .placeholder(_, let type) = $0 { type != .string } else { false } }.count
    }
    /// The placeholders' names in path order: the parameters a match sets.
    public var placeholderNames: [String] {
        segments.compactMap { if case .placeholder(let name, _) = $0 { name } else { nil } }
    }

    /// - Throws: `RouteError.invalidPattern` when `scheme://host` is missing or the host is not a
    ///   literal, a segment is empty or mixes a literal and a placeholder, a placeholder has an
    ///   unknown type or an invalid or repeated name, or `<path:…>` is not last.
    public init(parsing text: String) throws(RouteError) {
        self.text = text
        guard let range = text.firstRange(of: "://") else {
            throw .invalidPattern(text, "it must start with scheme://host")
        }
        scheme = String(text[..<range.lowerBound]).lowercased()
        guard !scheme.isEmpty else { throw .invalidPattern(text, "the scheme is empty") }
        let rest = text[range.upperBound...]
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        host = String(parts[0]).lowercased()
        guard !host.isEmpty, !host.contains("<") else { throw .invalidPattern(text, "the host must be a literal name") }
        var segments: [Segment] = []
        var names = Set<String>()
        var path = Array(parts.dropFirst())
        if path.last == "" { path.removeLast() }
        for (index, part) in path.enumerated() {
            guard !part.isEmpty else { throw .invalidPattern(text, "segment \(index + 1) is empty") }
            guard part.hasPrefix("<") else {
                guard !part.contains("<"), !part.contains(">") else {
                    throw .invalidPattern(text, "'\(part)' mixes a literal and a placeholder")
                }
                segments.append(.literal(String(part)))
                continue
            }
            guard part.hasSuffix(">") else { throw .invalidPattern(text, "'\(part)' is missing its '>'") }
            let inner = part.dropFirst().dropLast()
            let pieces = inner.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let type: PlaceholderType
            let name: Substring
            if pieces.count == 2 {
                guard let parsed = PlaceholderType(rawValue: String(pieces[0])) else {
                    throw .invalidPattern(
                        text,
                        "unknown placeholder type '\(pieces[0])' (known: \(PlaceholderType.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                type = parsed
                name = pieces[1]
            } else {
                type = .string
                name = pieces[0]
            }
            guard !name.isEmpty,
                name.utf8.allSatisfy({ ($0 | 0x20) >= 97 && ($0 | 0x20) <= 122 || ($0 >= 48 && $0 <= 57) || $0 == 95 })
            else {
                throw .invalidPattern(text, "'\(name)' is not a valid placeholder name (letters, digits, _)")
            }
            guard names.insert(String(name)).inserted else {
                throw .invalidPattern(text, "placeholder '\(name)' appears twice")
            }
            if type == .path, index != path.count - 1 {
                throw .invalidPattern(text, "<path:\(name)> must be the last segment")
            }
            segments.append(.placeholder(name: String(name), type: type))
        }
        self.segments = segments
    }

    /// The outcome of matching one link: the parameters, or why not.
    public enum Match: Sendable, Hashable {
        /// The link matches; the values of the pattern's placeholders.
        case matched([String: RouteParameter])
        /// Why the link does not match, for the explanation of a decision.
        case mismatch(String)
    }

    /// Matches `link`'s scheme, host and path segment by segment; its query is not looked at
    /// (a rule's `query` maps items to parameters).
    public func match(_ link: DeepLink) -> Match {
        guard link.scheme == scheme else { return .mismatch("scheme '\(link.scheme)' is not '\(scheme)'") }
        guard link.host == host else { return .mismatch("host '\(link.host)' is not '\(host)'") }
        var parameters: [String: RouteParameter] = [:]
        for (index, segment) in segments.enumerated() {
            if case .placeholder(let name, .path) = segment {
                let rest = link.segments.dropFirst(index)
                guard !rest.isEmpty else { return .mismatch("nothing left for <path:\(name)>") }
                parameters[name] = .string(rest.joined(separator: "/"))
                return .matched(parameters)
            }
            guard index < link.segments.count else {
                return .mismatch("the link has \(link.segments.count) path segments, the pattern \(segments.count)")
            }
            let value = link.segments[index]
            switch segment {
            case .literal(let literal):
                guard value == literal else { return .mismatch("segment \(index + 1) is '\(value)', not '\(literal)'") }
            case .placeholder(let name, let type):
                guard let parameter = RouteParameter(value, as: type) else {
                    return .mismatch(
                        value.isEmpty
                            ? "segment \(index + 1) is empty"
                            : "segment \(index + 1) '\(value)' is not \(type == .int ? "an" : "a") \(type.rawValue)"
                    )
                }
                parameters[name] = parameter
            }
        }
        guard link.segments.count == segments.count else {
            return .mismatch("the link has \(link.segments.count) path segments, the pattern \(segments.count)")
        }
        return .matched(parameters)
    }
}

/// A destination parameter: a string, or typed where the pattern says.
public enum RouteParameter: Sendable, Hashable, CustomStringConvertible {
    /// Text: from an untyped or `<path:…>` placeholder, a query item, or a push payload value
    /// other than a number (a bool, array or object as its JSON text).
    case string(String)
    case int(Int64)
    case float(Double)
    /// Canonical lower-case form.
    case uuid(String)

    init?(_ text: String, as type: RoutePattern.PlaceholderType) {
        guard !text.isEmpty else { return nil }
        switch type {
        case .string, .path: self = .string(text)
        case .int:
            guard let value = Int64(text) else { return nil }
            self = .int(value)
        case .float:
            guard let value = Double(text), value.isFinite,
                text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 || $0 | 0x20 == 101 })
            else { return nil }
            self = .float(value)
        case .uuid:
            let bytes = Array(text.utf8)
            guard bytes.count == 36 else { return nil }
            for (i, b) in bytes.enumerated() {
                if [8, 13, 18, 23].contains(i) {
                    guard b == UInt8(ascii: "-") else { return nil }
                } else {
                    guard (b >= 48 && b <= 57) || ((b | 0x20) >= 97 && (b | 0x20) <= 102) else { return nil }
                }
            }
            self = .uuid(text.lowercased())
        }
    }

    /// As passed to an app (environment value or argv element): plain text, never quoted.
    public var description: String {
        switch self {
        case .string(let s), .uuid(let s): s
        case .int(let i): String(i)
        case .float(let d): String(d)
        }
    }
}
