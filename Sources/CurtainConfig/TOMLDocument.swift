import JSON
import TOMLKit

/// TOML text as a JSON value tree (tables → objects; dates and times → strings), so that the
/// configuration is read and validated independently of the TOML library.
enum TOMLDocument {
    struct SyntaxError: Error {
        let line: Int
        let column: Int
        let message: String
    }

    static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        do {
            return convert(try TOMLTable(string: text))
        } catch let error as TOMLParseError {
            throw SyntaxError(line: error.source.begin.line, column: error.source.begin.column, message: error.description)
        } catch {
            throw SyntaxError(line: 1, column: 1, message: "\(error)")
        }
    }

    private static func convert(_ value: any TOMLValueConvertible) -> JSONValue {
        if let table = value.table { return .object(Dictionary(uniqueKeysWithValues: table.keys.map { ($0, convert(table[$0]!)) })) }
        if let array = value.array { return .array(array.map { convert($0) }) }
        if let bool = value.bool { return .bool(bool) }
        if let int = value.int { return .int(Int64(int)) }
        if let double = value.double { return .float(double) }
        if let string = value.string { return .string(string) }
        return .string(value.tomlValue.debugDescription)
    }
}
