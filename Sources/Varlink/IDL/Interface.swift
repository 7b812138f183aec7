/// A parsed Varlink interface definition (https://varlink.org/Interface-Definition).
///
/// `VarlinkInterface(parsing:)` builds one from text (IDLParser.swift); `description` prints it
/// back canonically (IDLPrinter.swift); `TypeChecker.swift` validates JSON against it.
public struct VarlinkInterface: Sendable, Hashable {
    /// Reverse-domain name, e.g. `org.varlink.service`.
    public var name: String
    /// The doc comment before the `interface` keyword, without the `# ` prefixes (lines joined by "\n").
    public var documentation: String
    public var members: [Member]

    public init(name: String, documentation: String = "", members: [Member]) {
        self.name = name
        self.documentation = documentation
        self.members = members
    }

    public enum Member: Sendable, Hashable {
        case type(TypeDefinition)
        case method(Method)
        case error(ErrorDefinition)

        public var name: String {
            switch self {
            case .type(let t): t.name
            case .method(let m): m.name
            case .error(let e): e.name
            }
        }
    }

    public func method(named name: String) -> Method? {
        for case .method(let m) in members where m.name == name { return m }
        return nil
    }

    public func type(named name: String) -> TypeDefinition? {
        for case .type(let t) in members where t.name == name { return t }
        return nil
    }

    public func error(named name: String) -> ErrorDefinition? {
        for case .error(let e) in members where e.name == name { return e }
        return nil
    }
}

/// `type Name (…)`: a named struct or enum.
public struct TypeDefinition: Sendable, Hashable {
    public var name: String
    public var documentation: String
    /// Always `.structure` or `.enumeration`.
    public var type: VarlinkType
    public init(name: String, documentation: String = "", type: VarlinkType) {
        self.name = name
        self.documentation = documentation
        self.type = type
    }
}

/// `method Name (in) -> (out)`.
public struct Method: Sendable, Hashable {
    public var name: String
    public var documentation: String
    public var input: [Field]
    public var output: [Field]
    public init(name: String, documentation: String = "", input: [Field], output: [Field]) {
        self.name = name
        self.documentation = documentation
        self.input = input
        self.output = output
    }
}

/// `error Name (…)`.
public struct ErrorDefinition: Sendable, Hashable {
    public var name: String
    public var documentation: String
    public var parameters: [Field]
    public init(name: String, documentation: String = "", parameters: [Field]) {
        self.name = name
        self.documentation = documentation
        self.parameters = parameters
    }
}

public struct Field: Sendable, Hashable {
    public var name: String
    public var type: VarlinkType
    public init(_ name: String, _ type: VarlinkType) {
        self.name = name
        self.type = type
    }
}

/// A Varlink type. A set `[string]()` is a map to an empty struct.
public indirect enum VarlinkType: Sendable, Hashable {
    case bool, int, float, string
    /// `object`: any JSON object, unchecked.
    case object
    /// A reference to a `type` of the same interface.
    case named(String)
    case structure([Field])
    case enumeration([String])
    /// `[]T`
    case array(VarlinkType)
    /// `[string]T`
    case map(VarlinkType)
    /// `?T`; never directly nested (`??T` is not valid).
    case optional(VarlinkType)
}
