/// Why a JSON value does not match a Varlink type: where (a path from the top-level field,
/// e.g. `point.x`, `list[3]`, `map["key"]`) and what.
public struct TypeMismatch: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where: `parameters` for the whole object, else a path from the top-level field.
    public var path: String
    /// What, e.g. `expected an int`, `missing`, `unknown field`.
    public var message: String
    /// A mismatch at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// The top-level field the mismatch lies in, as org.varlink.service.InvalidParameter names it.
    public var parameter: String {
        String(path.prefix { $0 != "." && $0 != "[" })
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

extension VarlinkInterface {
    /// Checks call parameters or reply parameters (`nil` is an empty object) against fields.
    /// Unknown fields are rejected; absent and null are accepted only for nullable fields.
    public func check(_ value: JSONValue?, against fields: [Field]) throws(TypeMismatch) {
        try check(value ?? .object([:]), .structure(fields), path: "", depth: 0)
    }

    private func check(_ value: JSONValue, _ type: VarlinkType, path: String, depth: Int) throws(TypeMismatch) {
        func fail(_ message: String) -> TypeMismatch {
            TypeMismatch(path: path.isEmpty ? "parameters" : path, message: message)
        }
        guard depth <= Self.maximumDepth * 2 else { throw fail("nested too deeply") }
        switch type {
        case .optional(let inner):
            if value != .null { try check(value, inner, path: path, depth: depth + 1) }
        case .bool:
            guard case .bool = value else { throw fail("expected a bool") }
        case .int:
            switch value {
            case .int: break
            // Some encoders write integral numbers as 1.0.
            case .float(let d) where d == d.rounded() && abs(d) < 9.2e18: break
            default: throw fail("expected an int")
            }
        case .float:
            switch value {
            case .int, .float: break
            default: throw fail("expected a float")
            }
        case .string:
            guard case .string = value else { throw fail("expected a string") }
        case .object:
            guard case .object = value else { throw fail("expected an object") }
        case .named(let name):
            guard let definition = self.type(named: name) else { throw fail("unknown type '\(name)'") }
            try check(value, definition.type, path: path, depth: depth + 1)
        case .enumeration(let cases):
            guard case .string(let s) = value, cases.contains(s) else {
                throw fail("expected one of \(cases.joined(separator: ", "))")
            }
        case .array(let inner):
            guard case .array(let values) = value else { throw fail("expected an array") }
            for (i, element) in values.enumerated() {
                try check(element, inner, path: "\(path)[\(i)]", depth: depth + 1)
            }
        case .map(let inner):
            guard case .object(let object) = value else {
                throw fail(inner == .structure([]) ? "expected a set (an object of {})" : "expected a map (an object)")
            }
            for (key, element) in object { try check(element, inner, path: "\(path)[\"\(key)\"]", depth: depth + 1) }
        case .structure(let fields):
            guard case .object(let object) = value else { throw fail("expected an object") }
            for field in fields {
                let fieldPath = path.isEmpty ? field.name : "\(path).\(field.name)"
                guard let fieldValue = object[field.name] else {
                    if case .optional = field.type { continue }
                    throw TypeMismatch(path: fieldPath, message: "missing")
                }
                try check(fieldValue, field.type, path: fieldPath, depth: depth + 1)
            }
            if object.count > fields.count
                || object.keys.contains(where: { key in !fields.contains { $0.name == key } })
            {
                let unknown = object.keys.filter { key in !fields.contains { $0.name == key } }.sorted()
                if let first = unknown.first {
                    throw TypeMismatch(path: path.isEmpty ? first : "\(path).\(first)", message: "unknown field")
                }
            }
        }
    }
}
