import JSON

/// How a launch arrives.
public enum Route: Sendable, Hashable, CustomStringConvertible {
    /// The user started the app.
    case normal(app: String)
    /// A push notification was opened; `app` when the notification names it.
    case push(app: String?, payload: JSONValue)
    /// A deep link was followed.
    case deeplink(String)

    /// A phrase for logs and errors; a deep link is cut to its first 200 characters.
    public var description: String {
        switch self {
        case .normal(let app): "normal start of '\(app)'"
        case .push(let app, _): app.map { "push notification for '\($0)'" } ?? "push notification"
        case .deeplink(let url): "deep link '\(url.prefix(200))'"
        }
    }

    /// Largest push payload accepted (its JSON text), and its deepest nesting.
    public static let maximumPayloadSize = 64 * 1024
    /// Deepest nesting of arrays and objects in a push payload (`{}` is 1 deep).
    public static let maximumPayloadDepth = 32
}

/// Where a launch lands: an app, one of its screens, and parameters (data, never code: they
/// reach the app as separate argv elements or environment values, never through a shell).
public struct Destination: Sendable, Hashable {
    /// The app to start.
    public var app: String
    /// The screen the app should open.
    public var screen: String
    /// Values for the screen: from the link's placeholders and query items, or from the payload.
    public var parameters: [String: RouteParameter]
    /// Set when the destination is not a rule's: `unmatched` for the fallback.
    public var reason: String?

    /// A destination as given; `RouteTable.resolve(_:)` builds them from its rules.
    public init(app: String, screen: String, parameters: [String: RouteParameter] = [:], reason: String? = nil) {
        self.app = app
        self.screen = screen
        self.parameters = parameters
        self.reason = reason
    }
}
