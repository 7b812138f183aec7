/// Where and why an interface definition was rejected (1-based line and column).
public struct IDLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line of the offending token.
    public var line: Int
    /// 1-based column, counted in characters, not bytes.
    public var column: Int
    /// What was expected and what was found, e.g. `expected ':' after field name 'x', found '}'`.
    public var message: String
    /// An error at `line` and `column`.
    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }
    /// `line L, column C: message`, as tools print it.
    public var description: String { "line \(line), column \(column): \(message)" }
}

extension VarlinkInterface {
    /// Longest interface text accepted.
    public static let maximumDescriptionSize = 1 << 20
    /// Deepest type nesting accepted (bounds the parser's recursion; this parser is fuzzed).
    public static let maximumDepth = 64

    /// Parses the Varlink interface definition language (varlink.org/Interface-Definition).
    ///
    /// Comments directly before the interface or a member become its documentation.
    /// - Throws: `IDLError` at the first syntax error, invalid name, member defined twice,
    ///   reference to an undefined type, nesting beyond `maximumDepth`, or a text larger than
    ///   `maximumDescriptionSize` bytes.
    public init(parsing text: String) throws(IDLError) {
        guard text.utf8.count <= Self.maximumDescriptionSize else {
            throw IDLError(
                line: 1,
                column: 1,
                message: "interface text is larger than \(Self.maximumDescriptionSize) bytes"
            )
        }
        var parser = IDLParser(Array(text.utf8))
        self = try parser.parseInterface()
    }
}

/// A recursive-descent parser over UTF-8 bytes, tracking line and column for errors.
struct IDLParser {
    private let bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    /// Doc comment lines seen since the last token.
    private var pendingDoc: [String] = []
    /// Named types used, with where, to check once every `type` is known.
    private var references: [(name: String, line: Int, column: Int)] = []

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private var column: Int { String(decoding: bytes[lineStart..<min(position, bytes.count)], as: UTF8.self).count + 1 }

    private func error(_ message: String) -> IDLError { IDLError(line: line, column: column, message: message) }

    private var atEnd: Bool { position >= bytes.count }
    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private func describeCurrent() -> String {
        guard let c = current else { return "end of input" }
        if c == 10 { return "end of line" }
        if c < 0x20 || c >= 0x7F { return "byte 0x\(String(c, radix: 16))" }
        return "'\(Character(Unicode.Scalar(c)))'"
    }

    /// Skips blanks, newlines and comments; comment text is collected as documentation, and a
    /// blank line ends (discards) the documentation collected so far.
    private mutating func skipSpace() {
        var newlinesInARow = 0
        while let c = current {
            switch c {
            case 32, 9, 13:
                position += 1
            case 10:
                position += 1
                line += 1
                lineStart = position
                newlinesInARow += 1
                if newlinesInARow >= 2 { pendingDoc = [] }
            case UInt8(ascii: "#"):
                var start = position + 1
                while let d = current, d != 10 { position += 1 }
                // Drop one space after '#', as a byte: a space followed by a combining mark is
                // one Character, and must not be taken for a plain space.
                if start < position, bytes[start] == 32 { start += 1 }
                pendingDoc.append(String(decoding: bytes[start..<position], as: UTF8.self))
                newlinesInARow = 0
            default:
                return
            }
        }
    }

    private mutating func takeDoc() -> String {
        defer { pendingDoc = [] }
        return pendingDoc.joined(separator: "\n")
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(IDLError) {
        skipSpace()
        guard current == byte else { throw error("expected \(what), found \(describeCurrent())") }
        position += 1
    }

    private static func isLetter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }
    private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// A run of word characters (letters, digits, `_`, `-`, `.`); validated by the caller.
    private mutating func word() -> String {
        skipSpace()
        let start = position
        while let c = current,
            Self.isLetter(c) || Self.isDigit(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
                || c == UInt8(ascii: ".")
        {
            position += 1
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func keyword(_ expected: String) throws(IDLError) {
        let startColumn = column
        let found = word()
        guard found == expected else {
            throw IDLError(
                line: line,
                column: startColumn,
                message: "expected '\(expected)', found \(found.isEmpty ? describeCurrent() : "'\(found)'")"
            )
        }
    }

    mutating func parseInterface() throws(IDLError) -> VarlinkInterface {
        skipSpace()
        let documentation = takeDoc()
        try keyword("interface")
        skipSpace()
        let nameColumn = column
        let name = word()
        guard Self.isInterfaceName(name) else {
            throw IDLError(
                line: line,
                column: nameColumn,
                message: name.isEmpty
                    ? "expected an interface name, found \(describeCurrent())"
                    : "'\(name)' is not a valid interface name (reverse-domain, e.g. org.example.ping)"
            )
        }
        var members: [VarlinkInterface.Member] = []
        var names = Set<String>()
        while true {
            skipSpace()
            if atEnd { break }
            let doc = takeDoc()
            let keywordColumn = column
            let kind = word()
            skipSpace()
            let memberLine = line
            let memberColumn = column
            let memberName = word()
            guard Self.isMemberName(memberName) else {
                if !["type", "method", "error"].contains(kind) {
                    throw IDLError(
                        line: memberLine,
                        column: keywordColumn,
                        message:
                            "expected 'type', 'method' or 'error', found \(kind.isEmpty ? describeCurrent() : "'\(kind)'")"
                    )
                }
                throw IDLError(
                    line: memberLine,
                    column: memberColumn,
                    message: memberName.isEmpty
                        ? "expected a name after '\(kind)', found \(describeCurrent())"
                        : "'\(memberName)' is not a valid \(kind) name (an upper-case letter, then letters and digits)"
                )
            }
            let member: VarlinkInterface.Member
            switch kind {
            case "type":
                let type = try parseStructOrEnum()
                member = .type(TypeDefinition(name: memberName, documentation: doc, type: type))
            case "method":
                let input = try parseStruct("the method's input")
                skipSpace()
                guard current == UInt8(ascii: "-"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ">")
                else {
                    throw error("expected '->' after the input of method '\(memberName)', found \(describeCurrent())")
                }
                position += 2
                let output = try parseStruct("the method's output")
                member = .method(Method(name: memberName, documentation: doc, input: input, output: output))
            case "error":
                member = .error(
                    ErrorDefinition(
                        name: memberName,
                        documentation: doc,
                        parameters: try parseStruct("the error's parameters")
                    )
                )
            default:
                throw IDLError(
                    line: memberLine,
                    column: keywordColumn,
                    message: "expected 'type', 'method' or 'error', found '\(kind)'"
                )
            }
            guard names.insert(memberName).inserted else {
                throw IDLError(line: memberLine, column: memberColumn, message: "'\(memberName)' is defined twice")
            }
            members.append(member)
        }
        guard !members.isEmpty else { throw error("an interface needs at least one method, type or error") }
        let defined = Set(members.compactMap { if case .type(let t) = $0 { t.name } else { nil } })
        if let missing = references.first(where: { !defined.contains($0.name) }) {
            throw IDLError(line: missing.line, column: missing.column, message: "unknown type '\(missing.name)'")
        }
        return VarlinkInterface(name: name, documentation: documentation, members: members)
    }

    /// `( name: type, … )` — a struct (possibly empty); an enum here is an error.
    private mutating func parseStruct(_ what: String) throws(IDLError) -> [Field] {
        skipSpace()
        let line0 = line
        let column0 = column
        let type = try parseStructOrEnum()
        switch type {
        case .structure(let fields): return fields
        default:
            throw IDLError(
                line: line0,
                column: column0,
                message: "\(what) must be a struct (name: type, …), not an enum"
            )
        }
    }

    /// `( … )`: a struct if its first entry has a ':', else an enum; `()` is an empty struct.
    private mutating func parseStructOrEnum() throws(IDLError) -> VarlinkType {
        depth += 1
        defer { depth -= 1 }
        guard depth <= VarlinkInterface.maximumDepth else {
            throw error("types nested deeper than \(VarlinkInterface.maximumDepth) levels")
        }
        try expect(UInt8(ascii: "("), "'('")
        skipSpace()
        if current == UInt8(ascii: ")") {
            position += 1
            return .structure([])
        }
        var fields: [Field] = []
        var cases: [String] = []
        var isEnum: Bool? = nil
        var seen = Set<String>()
        while true {
            skipSpace()
            let nameLine = line
            let nameColumn = column
            let name = word()
            guard Self.isFieldName(name) else {
                throw IDLError(
                    line: nameLine,
                    column: nameColumn,
                    message: name.isEmpty
                        ? "expected a field name, found \(describeCurrent())"
                        : "'\(name)' is not a valid field name (a letter, then letters, digits and single underscores)"
                )
            }
            guard seen.insert(name).inserted else {
                throw IDLError(line: nameLine, column: nameColumn, message: "'\(name)' appears twice")
            }
            skipSpace()
            let hasType = current == UInt8(ascii: ":")
            if isEnum == nil { isEnum = !hasType }
            if isEnum! {
                guard !hasType else { throw error("an enum's cases have no types; found ':' after '\(name)'") }
                cases.append(name)
            } else {
                guard hasType else {
                    throw error("expected ':' after field name '\(name)', found \(describeCurrent())")
                }
                position += 1
                fields.append(Field(name, try parseType()))
            }
            skipSpace()
            if current == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if current == UInt8(ascii: ")") {
                position += 1
                break
            }
            if isEnum! {
                throw error(
                    "expected ',' or ')' after enum case '\(name)' (or ':' if it is a field), found \(describeCurrent())"
                )
            }
            throw error("expected ',' or ')', found \(describeCurrent())")
        }
        return isEnum! ? .enumeration(cases) : .structure(fields)
    }

    private mutating func parseType() throws(IDLError) -> VarlinkType {
        depth += 1
        defer { depth -= 1 }
        guard depth <= VarlinkInterface.maximumDepth else {
            throw error("types nested deeper than \(VarlinkInterface.maximumDepth) levels")
        }
        skipSpace()
        guard let c = current else { throw error("expected a type, found end of input") }
        switch c {
        case UInt8(ascii: "?"):
            position += 1
            skipSpace()
            if current == UInt8(ascii: "?") { throw error("'??' is not allowed: a type is nullable once") }
            return .optional(try parseType())
        case UInt8(ascii: "("):
            return try parseStructOrEnum()
        case UInt8(ascii: "["):
            position += 1
            skipSpace()
            if current == UInt8(ascii: "]") {
                position += 1
                return .array(try parseType())
            }
            let keyColumn = column
            let key = word()
            guard key == "string" else {
                throw IDLError(
                    line: line,
                    column: keyColumn,
                    message: "map keys must be 'string', found \(key.isEmpty ? describeCurrent() : "'\(key)'")"
                )
            }
            try expect(UInt8(ascii: "]"), "']' after '[string'")
            return .map(try parseType())
        default:
            let typeColumn = column
            let name = word()
            switch name {
            case "bool": return .bool
            case "int": return .int
            case "float": return .float
            case "string": return .string
            case "object": return .object
            default:
                guard Self.isMemberName(name) else {
                    throw IDLError(
                        line: line,
                        column: typeColumn,
                        message: name.isEmpty ? "expected a type, found \(describeCurrent())" : "unknown type '\(name)'"
                    )
                }
                references.append((name, line, typeColumn))
                return .named(name)
            }
        }
    }

    static func isInterfaceName(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, name.utf8.count <= 255 else { return false }
        for (index, segment) in segments.enumerated() {
            let bytes = Array(segment.utf8)
            guard let first = bytes.first, let last = bytes.last, last != UInt8(ascii: "-") else { return false }
            guard index == 0 ? isLetter(first) : (isLetter(first) || isDigit(first)) else { return false }
            guard bytes.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }) else { return false }
        }
        return true
    }

    static func isMemberName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, first >= 65 && first <= 90 else { return false }
        return bytes.allSatisfy { isLetter($0) || isDigit($0) }
    }

    static func isFieldName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, isLetter(first), bytes.last != UInt8(ascii: "_") else { return false }
        var previousUnderscore = false
        for b in bytes {
            if b == UInt8(ascii: "_") {
                if previousUnderscore { return false }
                previousUnderscore = true
            } else {
                guard isLetter(b) || isDigit(b) else { return false }
                previousUnderscore = false
            }
        }
        return true
    }
}
