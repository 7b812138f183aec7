/// Canonical text of an interface: documentation as `# ` lines, `interface NAME`, then each
/// member after a blank line, on one line: `type T (a: int)`, `method M(a: int) -> (b: string)`,
/// `error E (a: string)`. Parsing the printed text gives back an equal interface.
extension VarlinkInterface: CustomStringConvertible {
    /// The canonical text described above.
    public var description: String {
        var out = Self.comment(documentation) + "interface \(name)\n"
        for member in members {
            out += "\n"
            switch member {
            case .type(let t): out += Self.comment(t.documentation) + "type \(t.name) \(t.type)\n"
            case .method(let m):
                out +=
                    Self.comment(m.documentation)
                    + "method \(m.name)\(VarlinkType.structure(m.input)) -> \(VarlinkType.structure(m.output))\n"
            case .error(let e):
                out += Self.comment(e.documentation) + "error \(e.name) \(VarlinkType.structure(e.parameters))\n"
            }
        }
        return out
    }

    private static func comment(_ documentation: String) -> String {
        guard !documentation.isEmpty else { return "" }
        // Split on the newline byte: "\r\n" is a single Character and would not split.
        return documentation.utf8.split(separator: 10, omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "#\n" : "# \(String(decoding: $0, as: UTF8.self))\n" }.joined()
    }
}

extension VarlinkType: CustomStringConvertible {
    /// The type as the IDL writes it, e.g. `[]?string`, `(x: float, y: float)`.
    public var description: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .object: "object"
        case .named(let name): name
        case .structure(let fields): "(" + fields.map { "\($0.name): \($0.type)" }.joined(separator: ", ") + ")"
        case .enumeration(let cases): "(" + cases.joined(separator: ", ") + ")"
        case .array(let inner): "[]\(inner)"
        case .map(let inner): "[string]\(inner)"
        case .optional(let inner): "?\(inner)"
        }
    }
}
