/// Why a route could not be resolved or a rule not built: precise, and never partial.
public enum RouteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An input longer than its limit, in bytes.
    case tooLong(what: String, length: Int, limit: Int)
    /// An input nested deeper than its limit.
    case tooDeep(what: String, limit: Int)
    /// A deep link that is not a valid URL: the link, and why.
    case invalidURL(String, String)
    /// A rule's pattern that does not parse: the pattern, and why.
    case invalidPattern(String, String)
    /// The route names an app the table does not know.
    case unknownApp(String)
    /// No rule matched the route (described) and no fallback is configured.
    case unmatched(String)
    /// A parameter's value holds a NUL byte (`%00` in a deep link, `\u0000` in a push).
    case nulInParameter(String)

    /// A sentence naming the input and the problem.
    public var description: String {
        switch self {
        case .tooLong(let what, let length, let limit):
            "the \(what) is \(length) bytes, more than the limit of \(limit)"
        case .tooDeep(let what, let limit): "the \(what) is nested deeper than \(limit) levels"
        case .invalidURL(let url, let why): "invalid deep link '\(url.prefix(200))': \(why)"
        case .invalidPattern(let pattern, let why): "invalid pattern '\(pattern)': \(why)"
        case .unknownApp(let app): "unknown app '\(app)'"
        case .unmatched(let route): "no rule matches \(route) and no fallback is configured"
        case .nulInParameter(let name):
            "parameter '\(name)' contains a NUL byte, which no argument or environment value can carry"
        }
    }
}
