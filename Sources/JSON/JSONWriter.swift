/// Serialises `JSONValue` straight to bytes. Written by hand because every reply goes through
/// it: no intermediate Data, no key sorting unless asked, no Foundation formatting.
public enum JSONWriter {
    /// Appends the JSON text of `value` to `out`.
    ///
    /// A float that is a whole number of magnitude below 10¹⁵ is written with `.0`, so it reads
    /// back as a float, not an int; NaN and the infinities, which JSON cannot express, are
    /// written as `null`.
    /// - Parameters:
    ///   - value: The document to write.
    ///   - out: The buffer to append to; reusing one across messages saves allocations.
    ///   - sortedKeys: Whether object members are written in key order, for stable output in tests
    ///     and on screen; off by default because sorting costs time on every reply.
    public static func write(_ value: JSONValue, into out: inout [UInt8], sortedKeys: Bool = false) {
        switch value {
        case .null: out += [0x6E, 0x75, 0x6C, 0x6C]
        case .bool(let b): out += b ? Array("true".utf8) : Array("false".utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .float(let d):
            if !d.isFinite {
                out += Array("null".utf8)
            } else if d == d.rounded(), abs(d) < 1e15 {
                out += Array(String(Int64(d)).utf8)
                out += [0x2E, 0x30]
            } else {
                out += Array(String(d).utf8)
            }
        case .string(let s): writeString(s, into: &out)
        case .array(let values):
            out.append(0x5B)
            for (i, v) in values.enumerated() {
                if i > 0 { out.append(0x2C) }
                write(v, into: &out, sortedKeys: sortedKeys)
            }
            out.append(0x5D)
        case .object(let object):
            out.append(0x7B)
            var first = true
            let keys = sortedKeys ? object.keys.sorted() : Array(object.keys)
            for key in keys {
                if !first { out.append(0x2C) }
                first = false
                writeString(key, into: &out)
                out.append(0x3A)
                write(object[key]!, into: &out, sortedKeys: sortedKeys)
            }
            out.append(0x7D)
        }
    }

    /// The JSON text of `value` as UTF-8 bytes; see `write(_:into:sortedKeys:)`.
    public static func bytes(_ value: JSONValue, sortedKeys: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out, sortedKeys: sortedKeys)
        return out
    }

    /// The JSON text of `value` as a String; see `write(_:into:sortedKeys:)`.
    public static func string(_ value: JSONValue, sortedKeys: Bool = false) -> String {
        String(decoding: bytes(value, sortedKeys: sortedKeys), as: UTF8.self)
    }

    /// Appends `s` as a quoted JSON string: quotes, backslashes and control characters are escaped,
    /// everything else (non-ASCII too) is copied as UTF-8.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}
