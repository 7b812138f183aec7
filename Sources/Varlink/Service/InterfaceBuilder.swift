/// An interface's definition text and the handlers of its methods, for `VarlinkService`.
///
/// ```swift
/// var ping = InterfaceBuilder(pingInterfaceText)
/// ping.method("Ping") { (input: PingIn, request) in PingOut(pong: input.ping) }
/// ping.streamingMethod("Watch", requiresMore: true) { (input: WatchIn, request, replies: ReplyStream<Event>) in
///     for await event in events { try await replies.send(event, continues: true) }
///     try await replies.send(.end, continues: false)
/// }
/// ```
public struct InterfaceBuilder: Sendable {
    /// The interface definition in the Varlink IDL, served verbatim by GetInterfaceDescription.
    public let text: String
    var handlers: [String: (VarlinkService.Handler, VarlinkService.MethodOptions)] = [:]

    /// Starts an interface with no handlers. The text is parsed when the service is built, so a bad
    /// definition is reported by `VarlinkService.init`, not here.
    public init(_ text: String) { self.text = text }

    /// Registers an untyped handler: parameters and replies as JSON objects.
    public mutating func rawMethod(
        _ name: String,
        options: VarlinkService.MethodOptions = .init(),
        _ handler: @escaping VarlinkService.Handler
    ) {
        handlers[name] = (handler, options)
    }

    /// A method with one reply: decode the parameters, return the reply.
    public mutating func method<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String,
        options: VarlinkService.MethodOptions = .init(),
        _ body: @escaping @Sendable (Input, VarlinkService.Request) async throws -> Output
    ) {
        rawMethod(name, options: options) { request, reply in
            let input = try TypedCoding.decode(Input.self, request.call.parameters)
            let output = try await body(input, request)
            try await reply(try TypedCoding.encode(output), false)
        }
    }

    /// A method that may reply many times (`more`): send through the stream; the last reply
    /// has `continues: false`.
    public mutating func streamingMethod<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String,
        requiresMore: Bool = false,
        _ body: @escaping @Sendable (Input, VarlinkService.Request, ReplyStream<Output>) async throws -> Void
    ) {
        rawMethod(name, options: .init(requiresMore: requiresMore)) { request, reply in
            let input = try TypedCoding.decode(Input.self, request.call.parameters)
            try await body(input, request, ReplyStream(reply: reply, more: request.call.more))
        }
    }
}

/// Typed replies of one streaming call.
public struct ReplyStream<Output: Encodable>: Sendable {
    let reply: VarlinkService.Reply
    /// Whether the caller asked for `more`: when false, send exactly one reply.
    public let more: Bool

    /// Encodes and sends one reply.
    /// - Parameters:
    ///   - output: The reply; it must encode to a JSON object matching the method's output.
    ///   - continues: True if more replies follow, allowed only when `more` is set; the last reply
    ///     of the call has false.
    /// - Throws: If `output` does not encode to a matching object, the call has already had its
    ///   final reply, or the connection could not take the reply (the call is then over).
    public func send(_ output: Output, continues: Bool) async throws {
        try await reply(try TypedCoding.encode(output), continues)
    }
}

/// A parameter or reply type with no fields.
public struct Empty: Codable, Sendable, Hashable {
    /// The empty object `{}`.
    public init() {}
}

/// Between `Codable` types and the JSON objects the service checks and sends.
enum TypedCoding {
    static func decode<T: Decodable>(_ type: T.Type, _ parameters: [String: JSONValue]) throws -> T {
        do {
            return try JSONValueDecoder.decode(T.self, from: .object(parameters))
        } catch let DecodingError.keyNotFound(key, context) {
            throw VarlinkError.invalidParameter((context.codingPath.first ?? key).stringValue)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
            let DecodingError.dataCorrupted(context)
        {
            throw VarlinkError.invalidParameter(context.codingPath.first?.stringValue ?? "parameters")
        }
    }

    static func encode<T: Encodable>(_ value: T) throws -> [String: JSONValue] {
        guard case .object(let object) = try JSONValueEncoder.encode(value) else {
            throw ReplyMisuse("a reply type must encode to a JSON object")
        }
        return object
    }
}
