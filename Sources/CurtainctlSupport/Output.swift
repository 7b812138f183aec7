import CurtainCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Numbers as printed: shortest text that reads back as the same double (at least as precise
/// as 9 significant digits, and exact), integers without ".0"; JSON gets null for non-finite.
public enum Format {
    public static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return value == 0 ? "0" : String(Int64(value)) }
        return String(value)
    }

    public static func json(_ value: Double) -> String { value.isFinite ? number(value) : "null" }

    public static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A value for a table cell: scalars plain, others as name=value pairs.
    public static func cell(_ value: Value) -> String {
        if case .scalar(let v) = value { return number(v) }
        let names = Value.componentNames(value.kind)
        return zip(names, value.components).map { "\($0)=\(number($1))" }.joined(separator: ",")
    }

    /// A value as JSON: a number, or an object of its components.
    public static func json(_ value: Value) -> String {
        if case .scalar(let v) = value { return json(v) }
        let names = Value.componentNames(value.kind)
        return "{" + zip(names, value.components).map { "\"\($0)\":\(json($1))" }.joined(separator: ",") + "}"
    }
}

/// Reads and writes whole files with plain POSIX calls (no Foundation at start-up).
public enum Files {
    public static let maximumRead = 16 * 1024 * 1024

    public static func read(_ path: String) throws(FileError) -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw FileError(path: path, errno: errno) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { bytes += buffer[0..<n] }
            if bytes.count > maximumRead { throw FileError(path: path, message: "larger than \(maximumRead) bytes") }
            if n < buffer.count {
                if ferror(file) != 0 { throw FileError(path: path, errno: errno) }
                return bytes
            }
        }
    }

    public static func write(_ text: String, to path: String) throws(FileError) {
        guard let file = fopen(path, "wb") else { throw FileError(path: path, errno: errno) }
        var bytes = Array(text.utf8)
        let written = bytes.withUnsafeMutableBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == bytes.count, closed == 0 else { throw FileError(path: path, errno: errno) }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

public struct FileError: Error, CustomStringConvertible {
    public let path: String
    public let message: String
    public init(path: String, errno code: Int32) {
        self.path = path
        message = String(cString: strerror(code))
    }
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// Unbuffered standard error, written with write(2).
public struct StandardError: TextOutputStream {
    public init() {}
    public mutating func write(_ string: String) { writeAll(2, string) }
}

/// Writes all of `text` to `fd` with write(2), past short writes (stops on an error).
public func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { unistd_write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { return }
        offset += n
    }
}

@inline(__always) private func unistd_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
