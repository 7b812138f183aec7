import Varlink

/// Codable values to and from the JSON objects Varlink carries (client side).
enum TypedJSON {
    static func object<T: Encodable>(_ value: T) throws -> [String: JSONValue] {
        guard case .object(let object) = try JSONValueEncoder.encode(value) else {
            throw EncodingError.invalidValue(
                value,
                .init(codingPath: [], debugDescription: "parameters must encode to a JSON object")
            )
        }
        return object
    }

    static func decode<T: Decodable>(_ type: T.Type, _ object: [String: JSONValue]) throws -> T {
        try JSONValueDecoder.decode(T.self, from: .object(object))
    }
}
