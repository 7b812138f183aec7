import JSON

/// TOML text as a JSON value tree (tables → objects; dates and times → their text), so that the
/// configuration is read and validated independently of the TOML syntax.
///
/// A TOML 1.0 parser of its own, without Foundation: TOMLKit (toml++) needs Foundation, and
/// Foundation with ICU was a third of curtaind's memory (BENCHMARKS.md, scenario 5). Strict as
/// the specification: every string form and escape, integers in four bases, floats with inf and
/// nan, dates and times, inline tables, arrays of tables, dotted keys, and every redefinition the
/// specification forbids; errors carry the line and column where the problem was found.
enum TOMLDocument {
    struct SyntaxError: Error {
        let line: Int
        let column: Int
        let message: String
    }

    /// Deepest nesting of arrays and inline tables inside one value (the parser recurses there).
    static let maximumDepth = 128

    static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        var parser = TOMLParser(Array(text.utf8))
        do {
            try parser.parseDocument()
        } catch {
            let (line, column) = parser.position(of: error.offset)
            throw SyntaxError(line: line, column: column, message: error.message)
        }
        return parser.root.json
    }
}

/// A table while the document is read: how it came to be decides what may still be added.
private final class TOMLTable {
    enum Origin {
        /// A parent of a `[header]` path, not yet defined itself: a later `[header]` may define it.
        case implicit
        /// Defined by its own `[header]` or `[[header]]`.
        case header
        /// Created by a dotted key (`a.b = 1`): further dotted keys may add to it, headers may not.
        case dotted
    }

    enum Entry {
        case table(TOMLTable)
        /// An array of tables (`[[name]]`): the last element takes the keys that follow.
        case tables([TOMLTable])
        /// A value, inline tables and arrays included: closed to headers and dotted keys.
        case value(JSONValue)
    }

    var origin: Origin
    var entries: [String: Entry] = [:]

    init(_ origin: Origin) { self.origin = origin }

    var json: JSONValue {
        .object(
            entries.mapValues { entry in
                switch entry {
                case .table(let table): table.json
                case .tables(let tables): .array(tables.map(\.json))
                case .value(let value): value
                }
            }
        )
    }
}

private struct TOMLParser {
    struct Failure: Error {
        let offset: Int
        let message: String
    }

    let bytes: [UInt8]
    var index = 0
    var depth = 0
    let root = TOMLTable(.header)
    /// The table that `key = value` lines go to: the last header's.
    var current: TOMLTable

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        current = root
    }

    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        // Columns count characters, not bytes: UTF-8 continuation bytes are skipped.
        let column = bytes[lineStart..<min(offset, bytes.count)].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        return (line, column)
    }

    func fail(_ message: String, at offset: Int? = nil) -> Failure {
        Failure(offset: offset ?? index, message: message)
    }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    func peek(_ ahead: Int) -> UInt8? { index + ahead < bytes.count ? bytes[index + ahead] : nil }

    func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { prefix in (0..<count).allSatisfy { bytes[index + $0] == prefix[$0] } }
    }

    // MARK: Whitespace, comments, line ends

    mutating func skipSpaces() {
        while let byte = peek, byte == 0x20 || byte == 0x09 { index += 1 }
    }

    /// A comment, if one starts here, up to (not including) its line end.
    mutating func skipComment() throws(Failure) {
        guard peek == UInt8(ascii: "#") else { return }
        while let byte = peek, byte != 0x0A {
            if byte == 0x0D, peek(1) == 0x0A { return }
            if isControl(byte) { throw fail("control character in a comment") }
            index += 1
        }
    }

    /// A line end (or the end of the text); anything else is an error.
    mutating func expectLineEnd() throws(Failure) {
        skipSpaces()
        try skipComment()
        if atEnd { return }
        if peek == 0x0A {
            index += 1
            return
        }
        if peek == 0x0D, peek(1) == 0x0A {
            index += 2
            return
        }
        throw fail("expected the end of the line, found '\(describe(peek!))'")
    }

    /// Whitespace, newlines and comments (inside arrays).
    mutating func skipBlank() throws(Failure) {
        while true {
            skipSpaces()
            try skipComment()
            if peek == 0x0A { index += 1 } else if peek == 0x0D, peek(1) == 0x0A { index += 2 } else { return }
        }
    }

    func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }

    func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }

    // MARK: Document

    mutating func parseDocument() throws(Failure) {
        while !atEnd {
            try skipBlank()
            guard let byte = peek else { return }
            if byte == UInt8(ascii: "[") {
                try parseHeader()
            } else {
                try parseKeyValue(into: current)
                try expectLineEnd()
            }
        }
    }

    /// `[a.b]` or `[[a.b]]`.
    mutating func parseHeader() throws(Failure) {
        let start = index
        let array = peek(1) == UInt8(ascii: "[")
        index += array ? 2 : 1
        skipSpaces()
        let keys = try parseKey()
        skipSpaces()
        guard starts(with: array ? "]]" : "]") else {
            throw fail("expected '\(array ? "]]" : "]")' to close the table header")
        }
        index += array ? 2 : 1
        try expectLineEnd()

        var table = root
        for (offset, key) in keys.dropLast().enumerated() {
            switch table.entries[key] {
            case nil:
                let child = TOMLTable(.implicit)
                table.entries[key] = .table(child)
                table = child
            case .table(let child): table = child
            case .tables(let children): table = children[children.count - 1]
            case .value:
                throw fail("'\(keys[...offset].joined(separator: "."))' is already a value, not a table", at: start)
            }
        }
        let last = keys[keys.count - 1]
        let name = keys.joined(separator: ".")
        if array {
            switch table.entries[last] {
            case nil:
                let child = TOMLTable(.header)
                table.entries[last] = .tables([child])
                current = child
            case .tables(var children):
                let child = TOMLTable(.header)
                children.append(child)
                table.entries[last] = .tables(children)
                current = child
            case .table, .value:
                throw fail("'\(name)' is already defined, not as an array of tables", at: start)
            }
        } else {
            switch table.entries[last] {
            case nil:
                let child = TOMLTable(.header)
                table.entries[last] = .table(child)
                current = child
            case .table(let child) where child.origin == .implicit:
                child.origin = .header
                current = child
            case .table, .tables, .value:
                throw fail("'\(name)' is defined twice", at: start)
            }
        }
    }

    /// `key = value` into `table` (dotted keys create tables on the way).
    mutating func parseKeyValue(into table: TOMLTable) throws(Failure) {
        let start = index
        let keys = try parseKey()
        skipSpaces()
        guard peek == UInt8(ascii: "=") else {
            throw fail(
                atEnd || peek == 0x0A || peek == 0x0D
                    ? "expected '=' after the key" : "expected '=' after the key, found '\(describe(peek!))'"
            )
        }
        index += 1
        skipSpaces()
        let value = try parseValue()
        var target = table
        for (offset, key) in keys.dropLast().enumerated() {
            switch target.entries[key] {
            case nil:
                let child = TOMLTable(.dotted)
                target.entries[key] = .table(child)
                target = child
            case .table(let child) where child.origin == .dotted:
                target = child
            default:
                throw fail(
                    "'\(keys[...offset].joined(separator: "."))' is already defined; a dotted key cannot add to it",
                    at: start
                )
            }
        }
        let last = keys[keys.count - 1]
        guard target.entries[last] == nil else {
            throw fail("'\(keys.joined(separator: "."))' is defined twice", at: start)
        }
        target.entries[last] = .value(value)
    }

    // MARK: Keys

    /// A key: bare, quoted or dotted (`a."b.c".'d'`).
    mutating func parseKey() throws(Failure) -> [String] {
        var keys: [String] = []
        while true {
            skipSpaces()
            switch peek {
            case UInt8(ascii: "\""):
                if starts(with: "\"\"\"") { throw fail("a key cannot be a multi-line string") }
                keys.append(try parseBasicString())
            case UInt8(ascii: "'"):
                if starts(with: "'''") { throw fail("a key cannot be a multi-line string") }
                keys.append(try parseLiteralString())
            case let byte? where isBareKey(byte):
                let start = index
                while let byte = peek, isBareKey(byte) { index += 1 }
                keys.append(String(decoding: bytes[start..<index], as: UTF8.self))
            case let byte?:
                throw fail(
                    keys.isEmpty
                        ? "expected a key, found '\(describe(byte))'"
                        : "expected a key after '.', found '\(describe(byte))'"
                )
            case nil:
                throw fail("expected a key")
            }
            skipSpaces()
            guard peek == UInt8(ascii: ".") else { return keys }
            index += 1
        }
    }

    func isBareKey(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    // MARK: Values

    mutating func parseValue() throws(Failure) -> JSONValue {
        guard let byte = peek else { throw fail("expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(starts(with: "\"\"\"") ? try parseMultilineBasicString() : try parseBasicString())
        case UInt8(ascii: "'"):
            return .string(starts(with: "'''") ? try parseMultilineLiteralString() : try parseLiteralString())
        case UInt8(ascii: "["):
            try enter()
            defer { depth -= 1 }
            return try parseArray()
        case UInt8(ascii: "{"):
            try enter()
            defer { depth -= 1 }
            return try parseInlineTable()
        case UInt8(ascii: "t") where starts(with: "true"):
            index += 4
            return .bool(true)
        case UInt8(ascii: "f") where starts(with: "false"):
            index += 5
            return .bool(false)
        default:
            return try parseNumberOrDate()
        }
    }

    /// One level deeper into an array or inline table (the caller leaves it with `depth -= 1`).
    mutating func enter() throws(Failure) {
        guard depth < TOMLDocument.maximumDepth else {
            throw fail("arrays and inline tables nested deeper than \(TOMLDocument.maximumDepth)")
        }
        depth += 1
    }

    mutating func parseArray() throws(Failure) -> JSONValue {
        index += 1  // [
        var values: [JSONValue] = []
        while true {
            try skipBlank()
            if peek == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            }
            values.append(try parseValue())
            try skipBlank()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(values)
            case let byte?: throw fail("expected ',' or ']' in an array, found '\(describe(byte))'")
            case nil: throw fail("unterminated array")
            }
        }
    }

    /// `{ a = 1, b.c = 2 }`: on one line, no trailing comma (TOML 1.0).
    mutating func parseInlineTable() throws(Failure) -> JSONValue {
        index += 1  // {
        let table = TOMLTable(.header)
        skipSpaces()
        if peek == UInt8(ascii: "}") {
            index += 1
            return table.json
        }
        while true {
            skipSpaces()
            if peek == 0x0A || peek == 0x0D { throw fail("an inline table must be on one line") }
            try parseKeyValue(into: table)
            skipSpaces()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return table.json
            case 0x0A, 0x0D: throw fail("an inline table must be on one line")
            case let byte?: throw fail("expected ',' or '}' in an inline table, found '\(describe(byte))'")
            case nil: throw fail("unterminated inline table")
            }
        }
    }

    // MARK: Strings

    mutating func parseBasicString() throws(Failure) -> String {
        index += 1  // "
        var scalars: [UInt8] = []
        while true {
            guard let byte = peek else { throw fail("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &scalars)
            case 0x0A, 0x0D:
                throw fail("unterminated string (a basic string ends on its line)")
            default:
                if isControl(byte) { throw fail("control character in a string; write it as an escape") }
                scalars.append(byte)
                index += 1
            }
        }
    }

    mutating func parseMultilineBasicString() throws(Failure) -> String {
        index += 3
        skipNewline()  // a newline right after the opening delimiter is trimmed
        var scalars: [UInt8] = []
        while true {
            guard let byte = peek else { throw fail("unterminated multi-line string") }
            switch byte {
            case UInt8(ascii: "\"") where starts(with: "\"\"\""):
                // Up to two quotes may precede the closing delimiter: `""""x"""""` is valid.
                var quotes = 3
                while peek(quotes) == UInt8(ascii: "\"") && quotes < 5 { quotes += 1 }
                scalars += Array(repeating: UInt8(ascii: "\""), count: quotes - 3)
                index += quotes
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                // A backslash at a line's end trims the newline and the whitespace after it.
                var ahead = 1
                while let next = peek(ahead), next == 0x20 || next == 0x09 { ahead += 1 }
                if peek(ahead) == 0x0A || (peek(ahead) == 0x0D && peek(ahead + 1) == 0x0A) {
                    index += ahead
                    while true {
                        if peek == 0x20 || peek == 0x09 || peek == 0x0A {
                            index += 1
                        } else if peek == 0x0D, peek(1) == 0x0A {
                            index += 2
                        } else {
                            break
                        }
                    }
                } else {
                    try parseEscape(into: &scalars)
                }
            case 0x0D where peek(1) == 0x0A:
                scalars.append(0x0A)
                index += 2
            default:
                if isControl(byte) && byte != 0x0A {
                    throw fail("control character in a string; write it as an escape")
                }
                scalars.append(byte)
                index += 1
            }
        }
    }

    mutating func skipNewline() {
        if peek == 0x0A { index += 1 } else if peek == 0x0D, peek(1) == 0x0A { index += 2 }
    }

    mutating func parseEscape(into scalars: inout [UInt8]) throws(Failure) {
        let start = index
        index += 1  // backslash
        guard let byte = peek else { throw fail("unterminated string") }
        index += 1
        switch byte {
        case UInt8(ascii: "b"): scalars.append(0x08)
        case UInt8(ascii: "t"): scalars.append(0x09)
        case UInt8(ascii: "n"): scalars.append(0x0A)
        case UInt8(ascii: "f"): scalars.append(0x0C)
        case UInt8(ascii: "r"): scalars.append(0x0D)
        case UInt8(ascii: "\""): scalars.append(0x22)
        case UInt8(ascii: "\\"): scalars.append(0x5C)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = byte == UInt8(ascii: "u") ? 4 : 8
            guard index + count <= bytes.count,
                let value = UInt32(String(decoding: bytes[index..<index + count], as: UTF8.self), radix: 16),
                bytes[index..<index + count].allSatisfy({ isHexDigit($0) }),
                let scalar = Unicode.Scalar(value)
            else { throw fail("'\\\(describe(byte))' needs \(count) hex digits of a Unicode scalar value", at: start) }
            scalars += Array(String(Character(scalar)).utf8)
            index += count
        default:
            throw fail("unknown escape '\\\(describe(byte))'", at: start)
        }
    }

    func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }

    mutating func parseLiteralString() throws(Failure) -> String {
        index += 1  // '
        let start = index
        while true {
            guard let byte = peek else { throw fail("unterminated string") }
            switch byte {
            case UInt8(ascii: "'"):
                index += 1
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            case 0x0A, 0x0D:
                throw fail("unterminated string (a literal string ends on its line)")
            default:
                if isControl(byte) { throw fail("control character in a string") }
                index += 1
            }
        }
    }

    mutating func parseMultilineLiteralString() throws(Failure) -> String {
        index += 3
        skipNewline()
        var scalars: [UInt8] = []
        while true {
            guard let byte = peek else { throw fail("unterminated multi-line string") }
            switch byte {
            case UInt8(ascii: "'") where starts(with: "'''"):
                var quotes = 3
                while peek(quotes) == UInt8(ascii: "'") && quotes < 5 { quotes += 1 }
                scalars += Array(repeating: UInt8(ascii: "'"), count: quotes - 3)
                index += quotes
                return String(decoding: scalars, as: UTF8.self)
            case 0x0D where peek(1) == 0x0A:
                scalars.append(0x0A)
                index += 2
            default:
                if isControl(byte) && byte != 0x0A { throw fail("control character in a string") }
                scalars.append(byte)
                index += 1
            }
        }
    }

    // MARK: Numbers, dates and times

    mutating func parseNumberOrDate() throws(Failure) -> JSONValue {
        let start = index
        // A date or time: digits then '-' at 4 or ':' at 2.
        if peek(4) == UInt8(ascii: "-") && (0..<4).allSatisfy({ peek($0).map(isDigit) ?? false }) {
            return .string(try parseDateTime())
        }
        if peek(2) == UInt8(ascii: ":") && (0..<2).allSatisfy({ peek($0).map(isDigit) ?? false }) {
            return .string(try parseTime())
        }
        while let byte = peek,
            !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ",")
                || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "#"))
        {
            index += 1
        }
        let token = String(decoding: bytes[start..<index], as: UTF8.self)
        guard !token.isEmpty else {
            throw fail(
                atEnd || peek == 0x0A || peek == 0x0D
                    ? "expected a value" : "expected a value, found '\(describe(peek!))'",
                at: start
            )
        }
        if let value = Self.number(token) { return value }
        throw fail("'\(token)' is not a valid value (string, number, boolean, date, array or table)", at: start)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// An integer or float token, or nil when it is neither.
    static func number(_ token: String) -> JSONValue? {
        var text = Substring(token)
        var sign = ""
        if let first = text.first, first == "+" || first == "-" {
            sign = first == "-" ? "-" : ""
            text = text.dropFirst()
        }
        switch text {
        case "inf": return .float(sign == "-" ? -.infinity : .infinity)
        case "nan": return .float(.nan)
        default: break
        }
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where text.hasPrefix(prefix) {
            // No sign on prefixed integers.
            guard token.first != "+" && token.first != "-" else { return nil }
            let digits = text.dropFirst(2)
            guard underscoresBetweenDigits(digits, radix: radix),
                let value = Int64(digits.filter { $0 != "_" }, radix: radix)
            else { return nil }
            return .int(value)
        }
        guard underscoresBetweenDigits(text, radix: 10, allowing: ".eE+-") else { return nil }
        let plain = text.filter { $0 != "_" }
        guard let first = plain.first, first.isASCII, first.isNumber else { return nil }
        let integerPart = plain.prefix { $0.isNumber }
        // No leading zeros: `0` alone, or `0.5`, `0e1`.
        if integerPart.count > 1 && integerPart.first == "0" { return nil }
        if plain.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let value = Int64(sign + plain) else { return nil }
            return .int(value)
        }
        // A float: int part, then '.' followed by digits and/or an exponent.
        let rest = plain.dropFirst(integerPart.count)
        var fraction = Substring("")
        var exponent = Substring("")
        if rest.first == "." {
            fraction = rest.dropFirst().prefix { $0.isNumber }
            guard !fraction.isEmpty else { return nil }
            exponent = rest.dropFirst(1 + fraction.count)
        } else {
            exponent = rest
        }
        if !exponent.isEmpty {
            guard exponent.first == "e" || exponent.first == "E" else { return nil }
            var digits = exponent.dropFirst()
            if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        guard let value = Double(sign + plain), value.isFinite else { return nil }
        return .float(value)
    }

    /// Every `_` stands between two digits of the radix.
    static func underscoresBetweenDigits(_ text: Substring, radix: Int, allowing: String = "") -> Bool {
        guard !text.isEmpty else { return false }
        let characters = Array(text)
        for (i, character) in characters.enumerated() {
            if character == "_" {
                guard i > 0, i + 1 < characters.count,
                    characters[i - 1].hexDigitValue.map({ $0 < radix }) ?? false,
                    characters[i + 1].hexDigitValue.map({ $0 < radix }) ?? false
                else { return false }
            } else if !(character.hexDigitValue.map({ $0 < radix }) ?? false) && !allowing.contains(character) {
                return false
            }
        }
        return true
    }

    /// `1979-05-27`, `1979-05-27T07:32:00`, `1979-05-27 07:32:00.999-07:00`, `…Z`: kept as text.
    mutating func parseDateTime() throws(Failure) -> String {
        let start = index
        try digits(4)
        try expect(UInt8(ascii: "-"))
        let month = try digits(2)
        try expect(UInt8(ascii: "-"))
        let day = try digits(2)
        guard (1...12).contains(month), (1...31).contains(day) else { throw fail("not a valid date", at: start) }
        // A time follows after 'T' or a space (the space only when a time really follows).
        if let byte = peek,
            byte == UInt8(ascii: "T") || byte == UInt8(ascii: "t")
                || (byte == 0x20 && peek(3) == UInt8(ascii: ":") && peek(1).map(isDigit) == true)
        {
            index += 1
            _ = try parseTime()
            if peek == UInt8(ascii: "Z") || peek == UInt8(ascii: "z") {
                index += 1
            } else if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") {
                index += 1
                let hours = try digits(2)
                try expect(UInt8(ascii: ":"))
                let minutes = try digits(2)
                guard hours < 24, minutes < 60 else { throw fail("not a valid time offset", at: start) }
            }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `07:32:00` or `07:32:00.999`.
    mutating func parseTime() throws(Failure) -> String {
        let start = index
        let hours = try digits(2)
        try expect(UInt8(ascii: ":"))
        let minutes = try digits(2)
        try expect(UInt8(ascii: ":"))
        let seconds = try digits(2)
        guard hours < 24, minutes < 60, seconds <= 60 else { throw fail("not a valid time", at: start) }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek, isDigit(byte) else { throw fail("expected digits after '.' in a time") }
            while let byte = peek, isDigit(byte) { index += 1 }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    @discardableResult
    mutating func digits(_ count: Int) throws(Failure) -> Int {
        var value = 0
        for _ in 0..<count {
            guard let byte = peek, isDigit(byte) else { throw fail("expected a digit in a date or time") }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            index += 1
        }
        return value
    }

    mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek == byte else { throw fail("expected '\(describe(byte))' in a date or time") }
        index += 1
    }
}
