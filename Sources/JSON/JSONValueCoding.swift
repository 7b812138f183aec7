/// `Codable` types to and from `JSONValue`, without Foundation.
///
/// FoundationEssentials' JSONDecoder was the only reason curtaind mapped that library (3.7 MiB
/// resident; BENCHMARKS.md, scenario 5), for timeline documents and typed Varlink methods whose
/// JSON is already parsed into a `JSONValue`. Decoding follows JSONDecoder's rules where the
/// package relies on them: integers decode as floating point, a float with an integral value
/// as an integer, a missing key or `null` as `nil` for an optional, and errors are the
/// standard library's `DecodingError`s with their coding paths.
public enum JSONValueDecoder {
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        if let value = value as? T { return value }
        return try T(from: ValueDecoder(value: value, codingPath: []))
    }
}

public enum JSONValueEncoder {
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let box = EncodedBox()
        try value.encode(to: ValueEncoder(box: box, codingPath: []))
        return box.value ?? .object([:])
    }
}

/// A coding key for array indices and dictionary keys.
struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

private func describe(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool: "bool"
    case .int, .float: "number"
    case .string: "a string"
    case .array: "an array"
    case .object: "a dictionary"
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    .typeMismatch(
        type,
        .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(describe(value)) instead.")
    )
}

// MARK: Decoding

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedDecoder(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else { throw mismatch([Any].self, value, codingPath) }
        return UnkeyedDecoder(array: array, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleDecoder(value: value, codingPath: codingPath)
    }
}

private struct SingleDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(type, value, codingPath) }
        return b
    }
    func decode(_ type: String.Type) throws -> String {
        guard case .string(let s) = value else { throw mismatch(type, value, codingPath) }
        return s
    }
    func decode(_ type: Double.Type) throws -> Double {
        switch value {
        case .int(let i): return Double(i)
        case .float(let d): return d
        default: throw mismatch(type, value, codingPath)
        }
    }
    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let result: I?
        switch value {
        case .int(let i): result = I(exactly: i)
        case .float(let d): result = I(exactly: d)
        default: throw mismatch(type, value, codingPath)
        }
        guard let result else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "Number \(JSONWriter.string(value)) does not fit in \(type)."
                )
            )
        }
        return result
    }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let value = value as? T { return value }
        return try T(from: ValueDecoder(value: value, codingPath: codingPath))
    }
}

private struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func value(_ key: Key) throws -> JSONValue {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue).")
            )
        }
        return value
    }
    func single(_ key: Key) throws -> SingleDecoder {
        SingleDecoder(value: try value(key), codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { (object[key.stringValue] ?? .null) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try single(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try single(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try single(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try single(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try single(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try single(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try single(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try single(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try single(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try single(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try single(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try single(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try single(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try single(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try value(key)
        if let value = value as? T { return value }
        return try T(from: ValueDecoder(value: value, codingPath: codingPath + [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: object["super"] ?? .null, codingPath: codingPath + [AnyCodingKey(stringValue: "super")])
    }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let array: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(array: [JSONValue], codingPath: [any CodingKey]) {
        self.array = array
        self.codingPath = codingPath
    }

    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    mutating func next(_ type: Any.Type) throws -> ValueDecoder {
        let key = AnyCodingKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                .init(codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end.")
            )
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: array[currentIndex], codingPath: codingPath + [key])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, array[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = try next(type)
        if let value = decoder.value as? T { return value }
        return try T(from: decoder)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: Any].self).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([Any].self).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}

// MARK: Encoding

/// Where an encoder puts its value; containers write into their parent's box when they change.
private final class EncodedBox {
    var value: JSONValue?
    init(_ value: JSONValue? = nil) { self.value = value }
}

private struct ValueEncoder: Encoder {
    let box: EncodedBox
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = box.value {} else { box.value = .object([:]) }
        return KeyedEncodingContainer(KeyedEncoder(box: box, codingPath: codingPath))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = box.value {} else { box.value = .array([]) }
        return UnkeyedEncoder(box: box, codingPath: codingPath)
    }
    func singleValueContainer() -> any SingleValueEncodingContainer { SingleEncoder(box: box, codingPath: codingPath) }
}

/// A value encoded on its own: the primitive directly, anything else through its `encode(to:)`.
private func encoded<T: Encodable>(_ value: T, _ path: [any CodingKey]) throws -> JSONValue {
    switch value {
    case let v as JSONValue: return v
    case let v as Bool: return .bool(v)
    case let v as String: return .string(v)
    case let v as Double: return try finite(v, path)
    case let v as Float: return try finite(Double(v), path)
    case let v as Int: return .int(Int64(v))
    case let v as Int64: return .int(v)
    case let v as Int32: return .int(Int64(v))
    case let v as UInt32: return .int(Int64(v))
    case let v as UInt64:
        guard let i = Int64(exactly: v) else { return .float(Double(v)) }
        return .int(i)
    default:
        let box = EncodedBox()
        try value.encode(to: ValueEncoder(box: box, codingPath: path))
        return box.value ?? .object([:])
    }
}

private func finite(_ value: Double, _ path: [any CodingKey]) throws -> JSONValue {
    guard value.isFinite else {
        throw EncodingError.invalidValue(
            value,
            .init(codingPath: path, debugDescription: "Unable to encode \(value) directly in JSON.")
        )
    }
    return .float(value)
}

private struct SingleEncoder: SingleValueEncodingContainer {
    let box: EncodedBox
    let codingPath: [any CodingKey]
    mutating func encodeNil() { box.value = .null }
    mutating func encode<T: Encodable>(_ value: T) throws { box.value = try encoded(value, codingPath) }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodedBox
    let codingPath: [any CodingKey]

    func set(_ key: Key, _ value: JSONValue) {
        guard case .object(var object) = box.value else { return }
        box.value = nil  // keeps the dictionary uniquely referenced while it changes
        object[key.stringValue] = value
        box.value = .object(object)
    }

    mutating func encodeNil(forKey key: Key) { set(key, .null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(key, try encoded(value, codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let me = self
        return KeyedEncodingContainer(
            NestedKeyed<NestedKey>(parent: { me.set(key, $0) }, codingPath: codingPath + [key])
        )
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let me = self
        return NestedUnkeyed(parent: { me.set(key, $0) }, codingPath: codingPath + [key])
    }
    mutating func superEncoder() -> any Encoder {
        let me = self
        return ForwardingEncoder(parent: { me.set(Key(stringValue: "super")!, $0) }, codingPath: codingPath)
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let me = self
        return ForwardingEncoder(parent: { me.set(key, $0) }, codingPath: codingPath + [key])
    }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let box: EncodedBox
    let codingPath: [any CodingKey]
    var count: Int { if case .array(let a) = box.value { a.count } else { 0 } }

    func append(_ value: JSONValue) {
        guard case .array(var array) = box.value else { return }
        box.value = nil
        array.append(value)
        box.value = .array(array)
    }
    /// Replaces element `index` (a nested container's later changes).
    func replace(_ index: Int, _ value: JSONValue) {
        guard case .array(var array) = box.value, index < array.count else { return }
        box.value = nil
        array[index] = value
        box.value = .array(array)
    }

    mutating func encodeNil() { append(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        append(try encoded(value, codingPath + [AnyCodingKey(intValue: count)]))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        append(.object([:]))
        let me = self
        return KeyedEncodingContainer(
            NestedKeyed<NestedKey>(
                parent: { me.replace(index, $0) },
                codingPath: codingPath + [AnyCodingKey(intValue: index)]
            )
        )
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        append(.array([]))
        let me = self
        return NestedUnkeyed(
            parent: { me.replace(index, $0) },
            codingPath: codingPath + [AnyCodingKey(intValue: index)]
        )
    }
    mutating func superEncoder() -> any Encoder {
        let index = count
        append(.null)
        let me = self
        return ForwardingEncoder(
            parent: { me.replace(index, $0) },
            codingPath: codingPath + [AnyCodingKey(intValue: index)]
        )
    }
}

/// A nested keyed container: its own box, copied into the parent on every change.
private struct NestedKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box = EncodedBox(.object([:]))
    let parent: (JSONValue) -> Void
    let codingPath: [any CodingKey]

    init(parent: @escaping (JSONValue) -> Void, codingPath: [any CodingKey]) {
        self.parent = parent
        self.codingPath = codingPath
        parent(.object([:]))
    }

    var inner: KeyedEncoder<Key> { KeyedEncoder(box: box, codingPath: codingPath) }
    func flush() { parent(box.value ?? .object([:])) }

    mutating func encodeNil(forKey key: Key) {
        var i = inner
        i.encodeNil(forKey: key)
        flush()
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        var i = inner
        try i.encode(value, forKey: key)
        flush()
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let me = self
        return KeyedEncodingContainer(
            NestedKeyed<NestedKey>(
                parent: {
                    me.inner.set(key, $0)
                    me.flush()
                },
                codingPath: codingPath + [key]
            )
        )
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let me = self
        return NestedUnkeyed(
            parent: {
                me.inner.set(key, $0)
                me.flush()
            },
            codingPath: codingPath + [key]
        )
    }
    mutating func superEncoder() -> any Encoder {
        let me = self
        return ForwardingEncoder(
            parent: {
                me.inner.set(Key(stringValue: "super")!, $0)
                me.flush()
            },
            codingPath: codingPath
        )
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let me = self
        return ForwardingEncoder(
            parent: {
                me.inner.set(key, $0)
                me.flush()
            },
            codingPath: codingPath + [key]
        )
    }
}

/// A nested unkeyed container: its own box, copied into the parent on every change.
private struct NestedUnkeyed: UnkeyedEncodingContainer {
    let box = EncodedBox(.array([]))
    let parent: (JSONValue) -> Void
    let codingPath: [any CodingKey]

    init(parent: @escaping (JSONValue) -> Void, codingPath: [any CodingKey]) {
        self.parent = parent
        self.codingPath = codingPath
        parent(.array([]))
    }

    var inner: UnkeyedEncoder { UnkeyedEncoder(box: box, codingPath: codingPath) }
    var count: Int { inner.count }
    func flush() { parent(box.value ?? .array([])) }

    mutating func encodeNil() {
        var i = inner
        i.encodeNil()
        flush()
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        var i = inner
        try i.encode(value)
        flush()
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        inner.append(.object([:]))
        let me = self
        return KeyedEncodingContainer(
            NestedKeyed<NestedKey>(
                parent: {
                    me.inner.replace(index, $0)
                    me.flush()
                },
                codingPath: codingPath + [AnyCodingKey(intValue: index)]
            )
        )
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        inner.append(.array([]))
        let me = self
        return NestedUnkeyed(
            parent: {
                me.inner.replace(index, $0)
                me.flush()
            },
            codingPath: codingPath + [AnyCodingKey(intValue: index)]
        )
    }
    mutating func superEncoder() -> any Encoder {
        let index = count
        inner.append(.null)
        let me = self
        return ForwardingEncoder(
            parent: {
                me.inner.replace(index, $0)
                me.flush()
            },
            codingPath: codingPath + [AnyCodingKey(intValue: index)]
        )
    }
}

/// An encoder whose value goes to a parent's slot (super encoders).
private struct ForwardingEncoder: Encoder {
    let parent: (JSONValue) -> Void
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(NestedKeyed<Key>(parent: parent, codingPath: codingPath))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { NestedUnkeyed(parent: parent, codingPath: codingPath) }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        ForwardingSingle(parent: parent, codingPath: codingPath)
    }
}

private struct ForwardingSingle: SingleValueEncodingContainer {
    let parent: (JSONValue) -> Void
    let codingPath: [any CodingKey]
    mutating func encodeNil() { parent(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { parent(try encoded(value, codingPath)) }
}
