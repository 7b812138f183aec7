/// Why a timing-function string was rejected. The description names the input and the problem,
/// e.g. `cubic-bezier(1.2, 0, 0, 1): x1 must be within [0, 1]`.
public struct TimingFunctionParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the text.
    public enum Problem: Sendable, Hashable {
        /// Nothing but whitespace.
        case empty
        /// Neither a known name nor a known function.
        case unknownFunction(String)
        /// Bad syntax, described in words.
        case malformed(String)
        /// The wrong number of arguments: what the function takes and how many it got.
        case argumentCount(function: String, expected: String, got: Int)
        /// An argument that is not a CSS number (`nan`, `inf` and hex are not).
        case notANumber(argument: String, text: String)
        /// A number outside the range its argument allows, e.g. `within [0, 1]`.
        case outOfRange(argument: String, range: String)
        /// A `steps()` position that is not one of `StepPosition`'s.
        case unknownStepPosition(String)
    }

    /// The text as given, without surrounding whitespace.
    public let input: String
    /// What was wrong with it.
    public let problem: Problem

    /// `input: reason`, e.g. `steps(0): the step count must be at least 1`.
    public var description: String {
        let reason =
            switch problem {
            case .empty: "empty timing function"
            case .unknownFunction(let name):
                "unknown timing function '\(name)' (known: \(TimingFunction.named.map(\.name).joined(separator: ", ")), cubic-bezier(), steps(), linear(), spring())"
            case .malformed(let what): what
            case .argumentCount(let function, let expected, let got): "\(function)() takes \(expected), got \(got)"
            case .notANumber(let argument, let text): "\(argument) is not a number: '\(text)'"
            case .outOfRange(let argument, let range): "\(argument) must be \(range)"
            case .unknownStepPosition(let text):
                "unknown step position '\(text)' (expected one of \(StepPosition.allCases.map(\.rawValue).joined(separator: ", ")))"
            }
        return "\(input): \(reason)"
    }
}

extension TimingFunction {
    /// Longest accepted text; longer input is rejected before any work is done.
    public static let maximumTextLength = 4096

    /// Parses CSS-like text: a name (`ease-in-out`, `easeInEaseOut`, `step-end`, …),
    /// `cubic-bezier(x1, y1, x2, y2)`, `steps(n[, position])`, `linear(stop, …)` or
    /// `spring(mass stiffness damping initialVelocity)`.
    /// - Throws: `TimingFunctionParseError` naming the input and the problem: an unknown name,
    ///   bad syntax, a wrong argument count, a non-number, or a value out of range (x values of
    ///   `cubic-bezier` outside [0, 1], a step count below 1, a spring without positive mass
    ///   and stiffness or with negative damping).
    public init(parsing text: String) throws(TimingFunctionParseError) {
        let input = String(text.trimmingWhitespace())
        func fail(_ problem: TimingFunctionParseError.Problem) -> TimingFunctionParseError {
            TimingFunctionParseError(input: input, problem: problem)
        }
        guard !input.isEmpty else { throw fail(.empty) }
        guard input.utf8.count <= Self.maximumTextLength else {
            throw fail(.malformed("longer than \(Self.maximumTextLength) bytes"))
        }
        guard let open = input.firstIndex(of: "(") else {
            guard let match = Self.named.first(where: { $0.name == input }) else { throw fail(.unknownFunction(input)) }
            self = match.function
            return
        }
        let name = String(input[..<open].trimmingWhitespace())
        guard input.hasSuffix(")") else { throw fail(.malformed("missing ')' at the end")) }
        let body = input[input.index(after: open)..<input.index(before: input.endIndex)]
        guard !body.contains("("), !body.contains(")") else {
            throw fail(.malformed("unexpected parenthesis inside \(name)()"))
        }

        func number(_ text: Substring, _ argument: String) throws(TimingFunctionParseError) -> Double {
            guard let value = parseCSSNumber(text) else {
                throw fail(.notANumber(argument: argument, text: String(text)))
            }
            return value
        }
        let arguments = body.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }

        switch name {
        case "cubic-bezier":
            guard arguments.count == 4 else {
                throw fail(
                    .argumentCount(function: name, expected: "4 numbers", got: arguments == [""] ? 0 : arguments.count)
                )
            }
            let labels = ["x1", "y1", "x2", "y2"]
            var values: [Double] = []
            for (argument, label) in zip(arguments, labels) { values.append(try number(argument, label)) }
            for index in [0, 2] where !(0...1).contains(values[index]) {
                throw fail(.outOfRange(argument: labels[index], range: "within [0, 1]"))
            }
            self = .cubicBezier(CubicBezier(values[0], values[1], values[2], values[3]))

        case "steps":
            guard (1...2).contains(arguments.count), arguments[0] != "" else {
                throw fail(
                    .argumentCount(
                        function: name,
                        expected: "a step count and an optional position",
                        got: arguments == [""] ? 0 : arguments.count
                    )
                )
            }
            guard let count = Int(arguments[0]) else {
                throw fail(.notANumber(argument: "the step count", text: String(arguments[0])))
            }
            var position = StepPosition.end
            if arguments.count == 2 {
                guard let parsed = StepPosition(rawValue: String(arguments[1])) else {
                    throw fail(.unknownStepPosition(String(arguments[1])))
                }
                position = parsed
            }
            if position == .jumpNone {
                guard count >= 2 else {
                    throw fail(.outOfRange(argument: "the step count", range: "at least 2 with jump-none"))
                }
            } else {
                guard count >= 1 else { throw fail(.outOfRange(argument: "the step count", range: "at least 1")) }
            }
            self = .steps(Steps(count, position))

        case "linear":
            var stops: [LinearEasing.Stop] = []
            for (index, argument) in arguments.enumerated() {
                let label = "stop \(index + 1)"
                var output: Double? = nil
                var inputs: [Double] = []
                for word in argument.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
                    if word.hasSuffix("%") {
                        inputs.append(try number(word.dropLast(), "\(label)'s input") / 100)
                    } else {
                        guard output == nil else { throw fail(.malformed("\(label) has more than one output number")) }
                        output = try number(word, "\(label)'s output")
                    }
                }
                guard let output else { throw fail(.malformed("\(label) has no output number")) }
                guard inputs.count <= 2 else { throw fail(.malformed("\(label) has more than two percentages")) }
                stops.append(LinearEasing.Stop(output, inputs: inputs))
            }
            guard stops.count >= 2 else {
                throw fail(.argumentCount(function: name, expected: "at least 2 stops", got: stops.count))
            }
            self = .linearStops(LinearEasing(stops: stops))

        case "spring":
            // WebKit's syntax separates the four numbers by spaces.
            let words = body.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard words.count == 4, !body.contains(",") else {
                throw fail(
                    .argumentCount(
                        function: name,
                        expected: "4 space-separated numbers (mass stiffness damping initialVelocity)",
                        got: words.count
                    )
                )
            }
            let labels = ["mass", "stiffness", "damping", "initialVelocity"]
            var values: [Double] = []
            for (word, label) in zip(words, labels) { values.append(try number(word, label)) }
            guard values[0] > 0 else { throw fail(.outOfRange(argument: "mass", range: "greater than 0")) }
            guard values[1] > 0 else { throw fail(.outOfRange(argument: "stiffness", range: "greater than 0")) }
            guard values[2] >= 0 else { throw fail(.outOfRange(argument: "damping", range: "at least 0")) }
            self = .spring(
                Spring(mass: values[0], stiffness: values[1], damping: values[2], initialVelocity: values[3])
            )

        default:
            throw fail(.unknownFunction(name))
        }
    }
}

/// A CSS `<number>`: optional sign, digits with an optional fraction, optional exponent.
/// Rejects what `Double(_:)` would also take but CSS would not (`nan`, `inf`, hex, empty).
func parseCSSNumber(_ text: Substring) -> Double? {
    var sawDigit = false
    for (offset, byte) in text.utf8.enumerated() {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
        case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): continue
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            // Only at the start or right after an exponent marker.
            if offset > 0 {
                let previous = text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: offset - 1)]
                guard previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E") else { return nil }
            }
        default: return nil
        }
    }
    guard sawDigit, let value = Double(text), value.isFinite else { return nil }
    return value
}

extension StringProtocol {
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return Substring() }
        let last = lastIndex(where: { !isSpace($0) })!
        return Substring(self[first...last])
    }
}
