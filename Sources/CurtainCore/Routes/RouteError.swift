/// Why a route could not be resolved or a rule not built: precise, and never partial.
public enum RouteError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooLong(what: String, length: Int, limit: Int)
    case tooDeep(what: String, limit: Int)
    case invalidURL(String, String)
    case invalidPattern(String, String)
    case unknownApp(String)
    case unmatched(String)
    /// A parameter's value holds a NUL byte (`%00` in a deep link, `\u0000` in a push).
    case nulInParameter(String)

    public var description: String {
        switch self {
        case .tooLong(let what, let length, let limit): "the \(what) is \(length) bytes, more than the limit of \(limit)"
        case .tooDeep(let what, let limit): "the \(what) is nested deeper than \(limit) levels"
        case .invalidURL(let url, let why): "invalid deep link '\(url.prefix(200))': \(why)"
        case .invalidPattern(let pattern, let why): "invalid pattern '\(pattern)': \(why)"
        case .unknownApp(let app): "unknown app '\(app)'"
        case .unmatched(let route): "no rule matches \(route) and no fallback is configured"
        case .nulInParameter(let name): "parameter '\(name)' contains a NUL byte, which no argument or environment value can carry"
        }
    }
}
