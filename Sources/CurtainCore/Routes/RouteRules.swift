import JSON

/// An app's screens, as far as routing is concerned.
public struct AppRoutes: Sendable, Hashable {
    /// The app's name, as routes and rules give it.
    public var name: String
    /// The screens rules may send it to.
    public var screens: [String]
    /// Where a normal start lands; one of `screens` (`RouteTable.problems()` reports it otherwise).
    public var defaultScreen: String
    /// An app as given.
    public init(name: String, screens: [String], defaultScreen: String) {
        self.name = name
        self.screens = screens
        self.defaultScreen = defaultScreen
    }
}

/// `pattern` → `app`/`screen`, with optional query items mapped to parameters.
public struct DeepLinkRule: Sendable, Hashable {
    /// The app a matching link starts.
    public var app: String
    /// The screen it opens.
    public var screen: String
    /// What links the rule matches (scheme, host and path; not the query).
    public var pattern: RoutePattern
    /// The first key of precedence: higher wins, whatever the pattern. 0 by default.
    public var priority: Int
    /// Query item name → parameter name; absent items are simply not set.
    public var query: [String: String]

    /// A rule as given.
    public init(app: String, screen: String, pattern: RoutePattern, priority: Int = 0, query: [String: String] = [:]) {
        self.app = app
        self.screen = screen
        self.pattern = pattern
        self.priority = priority
        self.query = query
    }
}

/// A push rule: matches when every `equals` key path holds that value and every `present`
/// key path exists; maps payload fields to parameters.
public struct PushRule: Sendable, Hashable {
    /// The app a matching push starts; a push that names another app skips the rule.
    public var app: String
    /// The screen it opens.
    public var screen: String
    /// Key path → the value it must hold, compared exactly: `1` is neither `"1"` nor `1.0`.
    public var equals: [KeyPath: JSONValue]
    /// Key paths that must exist, with any value (`null` included).
    public var present: [KeyPath]
    /// Parameter name → key path in the payload.
    public var parameters: [String: KeyPath]
    /// The first key of precedence: higher wins, whatever the conditions. 0 by default.
    public var priority: Int

    /// A rule as given.
    public init(
        app: String,
        screen: String,
        equals: [KeyPath: JSONValue] = [:],
        present: [KeyPath] = [],
        parameters: [String: KeyPath] = [:],
        priority: Int = 0
    ) {
        self.app = app
        self.screen = screen
        self.equals = equals
        self.present = present
        self.parameters = parameters
        self.priority = priority
    }

    /// Conditions count as specificity, the second key of precedence.
    public var specificity: Int { equals.count + present.count }

    /// A dotted path into a JSON payload: `aps.category`, `items.0.id`.
    public struct KeyPath: Sendable, Hashable, CustomStringConvertible {
        /// The path split at every dot.
        public let components: [String]
        /// Splits `text` at every dot; each component is an object key, or an index when the value
        /// there is an array.
        public init(_ text: String) {
            components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
        /// The dotted text.
        public var description: String { components.joined(separator: ".") }

        /// The value at the path in `value`; nil when a key is missing, an index is not a number or out
        /// of range, or the path runs into a scalar.
        public func lookup(_ value: JSONValue) -> JSONValue? {
            var current = value
            for component in components {
                switch current {
                case .object(let object):
                    guard let next = object[component] else { return nil }
                    current = next
                case .array(let array):
                    guard let index = Int(component), array.indices.contains(index) else { return nil }
                    current = array[index]
                default:
                    return nil
                }
            }
            return current
        }
    }
}
