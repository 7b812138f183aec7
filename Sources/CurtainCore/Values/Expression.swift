import RealModule

/// A small arithmetic expression over named parameters, so that a timeline can say what seed 000
/// computes from the screen: `18 * screen.height / 667`, `-atan(mask.y / mask.x)`.
///
/// Grammar: `+ - * /`, unary minus, parentheses, numbers, names (`screen.height`,
/// `element.logo.x`), `pi`, and the functions `abs sqrt sin cos tan atan atan2 min max`.
/// Evaluated once when a timeline is compiled, never per frame.
public indirect enum Expression: Sendable, Hashable {
    case number(Double)
    /// A name, looked up when evaluated.
    case parameter(String)
    case negate(Expression)
    case binary(Operator, Expression, Expression)
    /// A function and its arguments, as many as it takes.
    case call(Function, [Expression])

    /// The four arithmetic operators, as written.
    public enum Operator: Character, Sendable, Hashable {
        case add = "+"
        case subtract = "-"
        case multiply = "*"
        case divide = "/"
    }

    /// The functions an expression may call: `atan2(y, x)`, `min` and `max` take two arguments,
    /// the others one; angles are in radians.
    public enum Function: String, Sendable, Hashable, CaseIterable {
        case abs, sqrt, sin, cos, tan, atan, atan2, min, max
        var arity: Int { self == .atan2 || self == .min || self == .max ? 2 : 1 }
    }

    /// Longest expression text accepted.
    public static let maximumLength = 1024
    /// Deepest nesting of parentheses and calls accepted (bounds the parser's recursion).
    public static let maximumDepth = 32

    /// The value with `parameters` bound. IEEE arithmetic: dividing by 0 gives an infinity, and
    /// callers reject results that are not finite.
    /// - Throws: `ExpressionError` naming a parameter that `parameters` does not bind (`pi` is
    ///   bound unless `parameters` gives it another value).
    public func evaluate(_ parameters: [String: Double]) throws(ExpressionError) -> Double {
        switch self {
        case .number(let value): return value
        case .parameter(let name):
            if let value = parameters[name] { return value }
            if name == "pi" { return .pi }
            throw ExpressionError(
                text: name,
                column: 1,
                message: "unknown parameter '\(name)' (known: \(parameters.keys.sorted().joined(separator: ", ")))"
            )
        case .negate(let operand): return -(try operand.evaluate(parameters))
        case .binary(let op, let lhs, let rhs):
            let a = try lhs.evaluate(parameters)
            let b = try rhs.evaluate(parameters)
            switch op {
            case .add: return a + b
            case .subtract: return a - b
            case .multiply: return a * b
            case .divide: return a / b
            }
        case .call(let function, let arguments):
            var values: [Double] = []
            for argument in arguments { values.append(try argument.evaluate(parameters)) }
            switch function {
            case .abs: return Swift.abs(values[0])
            case .sqrt: return values[0].squareRoot()
            case .sin: return Double.sin(values[0])
            case .cos: return Double.cos(values[0])
            case .tan: return Double.tan(values[0])
            case .atan: return Double.atan(values[0])
            case .atan2: return Double.atan2(y: values[0], x: values[1])
            case .min: return Swift.min(values[0], values[1])
            case .max: return Swift.max(values[0], values[1])
            }
        }
    }

    /// Names of the parameters the expression reads.
    public var parameterNames: Set<String> {
        switch self {
        case .number: []
        case .parameter(let name): name == "pi" ? [] : [name]
        case .negate(let e): e.parameterNames
        case .binary(_, let a, let b): a.parameterNames.union(b.parameterNames)
        case .call(_, let args): args.reduce(into: Set<String>()) { $0.formUnion($1.parameterNames) }
        }
    }
}

/// A parse or evaluation error, with the 1-based column where it was found.
public struct ExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expression text (its first 40 characters if it was too long), or the unknown name for
    /// an evaluation error.
    public let text: String
    /// 1-based byte offset of the problem in `text`; 1 for an evaluation error.
    public let column: Int
    /// What is wrong, e.g. `expected ')'`.
    public let message: String
    /// `'text' column N: message`.
    public var description: String { "'\(text)' column \(column): \(message)" }
}

extension Expression {
    /// Parses the grammar above; spaces and tabs may separate tokens.
    /// - Throws: `ExpressionError` at the first problem: an unexpected character, an unknown
    ///   function, a wrong argument count, a malformed number, text longer than `maximumLength`
    ///   bytes, or nesting deeper than `maximumDepth`.
    public init(parsing text: String) throws(ExpressionError) {
        guard text.utf8.count <= Self.maximumLength else {
            throw ExpressionError(
                text: String(text.prefix(40)) + "…",
                column: 1,
                message: "longer than \(Self.maximumLength) bytes"
            )
        }
        var parser = ExpressionParser(text: text)
        self = try parser.parseAll()
    }
}

private struct ExpressionParser {
    let text: String
    let bytes: [UInt8]
    var position = 0
    var depth = 0

    init(text: String) {
        self.text = text
        bytes = Array(text.utf8)
    }

    func error(_ message: String, at column: Int? = nil) -> ExpressionError {
        ExpressionError(text: text, column: (column ?? position) + 1, message: message)
    }

    mutating func skipSpaces() {
        while position < bytes.count, bytes[position] == 32 || bytes[position] == 9 { position += 1 }
    }

    mutating func peek() -> UInt8? {
        skipSpaces()
        return position < bytes.count ? bytes[position] : nil
    }

    mutating func parseAll() throws(ExpressionError) -> Expression {
        let expression = try parseSum()
        if let extra = peek() { throw error("unexpected '\(Character(Unicode.Scalar(extra)))'") }
        return expression
    }

    mutating func parseSum() throws(ExpressionError) -> Expression {
        var lhs = try parseProduct()
        while let c = peek(), c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
            position += 1
            lhs = .binary(c == UInt8(ascii: "+") ? .add : .subtract, lhs, try parseProduct())
        }
        return lhs
    }

    mutating func parseProduct() throws(ExpressionError) -> Expression {
        var lhs = try parseUnary()
        while let c = peek(), c == UInt8(ascii: "*") || c == UInt8(ascii: "/") {
            position += 1
            lhs = .binary(c == UInt8(ascii: "*") ? .multiply : .divide, lhs, try parseUnary())
        }
        return lhs
    }

    mutating func parseUnary() throws(ExpressionError) -> Expression {
        if peek() == UInt8(ascii: "-") {
            position += 1
            return try nested { (p: inout ExpressionParser) throws(ExpressionError) in .negate(try p.parseUnary()) }
        }
        if peek() == UInt8(ascii: "+") {
            position += 1
            return try parseUnary()
        }
        return try parsePrimary()
    }

    mutating func nested(
        _ body: (inout ExpressionParser) throws(ExpressionError) -> Expression
    ) throws(ExpressionError) -> Expression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Expression.maximumDepth else {
            throw error("nested deeper than \(Expression.maximumDepth) levels")
        }
        return try body(&self)
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == UInt8(ascii: "_")
            || c == UInt8(ascii: ".")
    }

    mutating func parsePrimary() throws(ExpressionError) -> Expression {
        guard let c = peek() else { throw error("expected a number, a name or '('") }
        let start = position
        if c == UInt8(ascii: "(") {
            position += 1
            let inner = try nested { (p: inout ExpressionParser) throws(ExpressionError) in try p.parseSum() }
            guard peek() == UInt8(ascii: ")") else { throw error("expected ')'") }
            position += 1
            return inner
        }
        if (c >= 48 && c <= 57) || c == UInt8(ascii: ".") {
            while position < bytes.count {
                let b = bytes[position]
                let exponentSign =
                    (b == 43 || b == 45) && position > start && (bytes[position - 1] | 0x20) == UInt8(ascii: "e")
                guard (b >= 48 && b <= 57) || b == UInt8(ascii: ".") || (b | 0x20) == UInt8(ascii: "e") || exponentSign
                else { break }
                position += 1
            }
            let literal = String(decoding: bytes[start..<position], as: UTF8.self)
            guard let value = parseCSSNumber(Substring(literal)) else {
                throw error("'\(literal)' is not a number", at: start)
            }
            return .number(value)
        }
        guard Self.isNameByte(c), !(c >= 48 && c <= 57) else {
            throw error("unexpected '\(Character(Unicode.Scalar(c)))'")
        }
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        let name = String(decoding: bytes[start..<position], as: UTF8.self)
        guard peek() == UInt8(ascii: "(") else { return .parameter(name) }
        guard let function = Expression.Function(rawValue: name) else {
            throw error(
                "unknown function '\(name)' (known: \(Expression.Function.allCases.map(\.rawValue).joined(separator: ", ")))",
                at: start
            )
        }
        position += 1
        var arguments: [Expression] = []
        if peek() != UInt8(ascii: ")") {
            repeat {
                if !arguments.isEmpty { position += 1 }
                arguments.append(try nested { (p: inout ExpressionParser) throws(ExpressionError) in try p.parseSum() })
            } while peek() == UInt8(ascii: ",")
        }
        guard peek() == UInt8(ascii: ")") else { throw error("expected ')' or ','") }
        position += 1
        guard arguments.count == function.arity else {
            throw error(
                "\(name)() takes \(function.arity) argument\(function.arity == 1 ? "" : "s"), got \(arguments.count)",
                at: start
            )
        }
        return .call(function, arguments)
    }
}
