import JSON

/// An app's screens, as far as routing is concerned.
public struct AppRoutes: Sendable, Hashable {
    public var name: String
    public var screens: [String]
    public var defaultScreen: String
    public init(name: String, screens: [String], defaultScreen: String) {
        self.name = name
        self.screens = screens
        self.defaultScreen = defaultScreen
    }
}

/// `pattern` → `app`/`screen`, with optional query items mapped to parameters.
public struct DeepLinkRule: Sendable, Hashable {
    public var app: String
    public var screen: String
    public var pattern: RoutePattern
    public var priority: Int
    /// Query item name → parameter name; absent items are simply not set.
    public var query: [String: String]

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
    public var app: String
    public var screen: String
    public var equals: [KeyPath: JSONValue]
    public var present: [KeyPath]
    /// Parameter name → key path in the payload.
    public var parameters: [String: KeyPath]
    public var priority: Int

    public init(app: String, screen: String, equals: [KeyPath: JSONValue] = [:], present: [KeyPath] = [],
                parameters: [String: KeyPath] = [:], priority: Int = 0) {
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
        public let components: [String]
        public init(_ text: String) { components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        public var description: String { components.joined(separator: ".") }

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
