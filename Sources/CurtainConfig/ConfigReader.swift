import JSON

/// Typed reads from the document that record a located error instead of failing, so one pass
/// reports every problem.
struct ConfigReader {
    let file: String
    let locator: KeyLocator
    private(set) var errors: [ConfigurationError] = []

    init(file: String, locator: KeyLocator) {
        self.file = file
        self.locator = locator
    }

    mutating func fail(_ path: String, _ message: String) {
        let position = locator.locate(path)
        errors.append(
            ConfigurationError(
                file: file,
                line: position.line,
                column: position.column,
                keyPath: path,
                message: message
            )
        )
    }

    /// A table; unknown keys are errors when `allowed` is given.
    mutating func table(_ value: JSONValue?, _ path: String, allowed: Set<String>?) -> [String: JSONValue]? {
        guard let value else { return nil }
        guard case .object(let object) = value else {
            fail(path, "expected a table")
            return nil
        }
        if let allowed {
            for key in object.keys.sorted() where !allowed.contains(key) {
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                fail(keyPath, "unknown key '\(key)' (known here: \(allowed.sorted().joined(separator: ", ")))")
            }
        }
        return object
    }

    mutating func array(_ value: JSONValue?, _ path: String) -> [JSONValue]? {
        guard let value else { return nil }
        guard case .array(let array) = value else {
            fail(path, "expected an array")
            return nil
        }
        return array
    }

    mutating func string(_ value: JSONValue?, _ path: String) -> String? {
        guard let value else { return nil }
        guard case .string(let string) = value else {
            fail(path, "expected a string")
            return nil
        }
        return string
    }

    mutating func strings(_ value: JSONValue?, _ path: String) -> [String]? {
        guard let array = array(value, path) else { return nil }
        var result: [String] = []
        for (index, element) in array.enumerated() {
            if let string = string(element, "\(path)[\(index)]") { result.append(string) }
        }
        return result
    }

    mutating func bool(_ value: JSONValue?, _ path: String) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let bool) = value else {
            fail(path, "expected true or false")
            return nil
        }
        return bool
    }

    mutating func number(_ value: JSONValue?, _ path: String, in range: ClosedRange<Double>) -> Double? {
        guard let value else { return nil }
        let number: Double
        switch value {
        case .int(let i): number = Double(i)
        case .float(let d): number = d
        default:
            fail(path, "expected a number")
            return nil
        }
        guard range.contains(number) else {
            fail(path, "\(number) is outside \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return number
    }

    mutating func integer(_ value: JSONValue?, _ path: String, in range: ClosedRange<Int>) -> Int? {
        guard let value else { return nil }
        guard case .int(let i) = value else {
            fail(path, "expected a whole number")
            return nil
        }
        guard range.contains(Int(i)) else {
            fail(path, "\(i) is outside \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return Int(i)
    }

    /// One of an enumeration's raw values.
    mutating func choice<T: RawRepresentable & CaseIterable>(_ value: JSONValue?, _ path: String) -> T?
    where T.RawValue == String {
        guard let text = string(value, path) else { return nil }
        if let parsed = T(rawValue: text) { return parsed }
        fail(path, "'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        return nil
    }

    mutating func required<T>(_ value: T?, _ path: String) -> T? {
        if value == nil, !errors.contains(where: { $0.keyPath == path }) { fail(path, "is required") }
        return value
    }
}
