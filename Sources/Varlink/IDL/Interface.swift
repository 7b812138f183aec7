/// A parsed Varlink interface definition (https://varlink.org/Interface-Definition).
///
/// `VarlinkInterface(parsing:)` builds one from text (IDLParser.swift); `description` prints it
/// back canonically (IDLPrinter.swift); `TypeChecker.swift` validates JSON against it.
public struct VarlinkInterface: Sendable, Hashable {
    /// Reverse-domain name, e.g. `org.varlink.service`.
    public var name: String
    /// The doc comment before the `interface` keyword, without the `# ` prefixes (lines joined by "\n").
    public var documentation: String
    /// The types, methods and errors, in the order of the definition text.
    public var members: [Member]

    /// An interface as given; unlike `init(parsing:)`, nothing is validated (names, references).
    public init(name: String, documentation: String = "", members: [Member]) {
        self.name = name
        self.documentation = documentation
        self.members = members
    }

    /// One definition of an interface.
    public enum Member: Sendable, Hashable {
        case type(TypeDefinition)
        case method(Method)
        case error(ErrorDefinition)

        /// The member's name, unique within its interface.
        public var name: String {
            switch self {
            case .type(let t): t.name
            case .method(let m): m.name
            case .error(let e): e.name
            }
        }
    }

    /// The method `name` (unqualified, e.g. `GetInfo`); nil if the interface has none.
    public func method(named name: String) -> Method? {
        for case .method(let m) in members where m.name == name { return m }
        return nil
    }

    /// The `type` definition `name`; nil if the interface has none.
    public func type(named name: String) -> TypeDefinition? {
        for case .type(let t) in members where t.name == name { return t }
        return nil
    }

    /// The error `name` (unqualified, e.g. `InterfaceNotFound`); nil if the interface has none.
    public func error(named name: String) -> ErrorDefinition? {
        for case .error(let e) in members where e.name == name { return e }
        return nil
    }
}

/// `type Name (…)`: a named struct or enum.
public struct TypeDefinition: Sendable, Hashable {
    /// An upper-case letter, then letters and digits.
    public var name: String
    /// Its doc comment, without the `# ` prefixes (lines joined by "\n"); empty if none.
    public var documentation: String
    /// Always `.structure` or `.enumeration`.
    public var type: VarlinkType
    /// A type definition as given, not validated.
    public init(name: String, documentation: String = "", type: VarlinkType) {
        self.name = name
        self.documentation = documentation
        self.type = type
    }
}

/// `method Name (in) -> (out)`.
public struct Method: Sendable, Hashable {
    /// An upper-case letter, then letters and digits; a call names it qualified by the interface.
    public var name: String
    /// Its doc comment, without the `# ` prefixes (lines joined by "\n"); empty if none.
    public var documentation: String
    /// The call's parameters.
    public var input: [Field]
    /// The parameters of each reply.
    public var output: [Field]
    /// A method as given, not validated.
    public init(name: String, documentation: String = "", input: [Field], output: [Field]) {
        self.name = name
        self.documentation = documentation
        self.input = input
        self.output = output
    }
}

/// `error Name (…)`.
public struct ErrorDefinition: Sendable, Hashable {
    /// An upper-case letter, then letters and digits; an error reply names it qualified by the interface.
    public var name: String
    /// Its doc comment, without the `# ` prefixes (lines joined by "\n"); empty if none.
    public var documentation: String
    /// The error reply's parameters.
    public var parameters: [Field]
    /// An error definition as given, not validated.
    public init(name: String, documentation: String = "", parameters: [Field]) {
        self.name = name
        self.documentation = documentation
        self.parameters = parameters
    }
}

/// A named, typed member of a struct: a parameter, a reply field or a struct field.
public struct Field: Sendable, Hashable {
    /// A letter, then letters, digits and single underscores (not at the end).
    public var name: String
    /// The field's type; nullable fields are `.optional` and may be absent.
    public var type: VarlinkType
    /// A field as given, not validated.
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
    /// `(name: type, …)`: a JSON object with exactly these fields; `()` is the empty struct.
    case structure([Field])
    /// `(a, b, c)`: one of the names, as a JSON string.
    case enumeration([String])
    /// `[]T`
    case array(VarlinkType)
    /// `[string]T`
    case map(VarlinkType)
    /// `?T`; never directly nested (`??T` is not valid).
    case optional(VarlinkType)
}
