/// A method call: `{"method": "iface.Method", "parameters": {…}, "oneway"?, "more"?, "upgrade"?}`.
public struct VarlinkCall: Sendable, Hashable {
    /// Fully qualified: `org.varlink.service.GetInfo`.
    public var method: String
    /// Always an object (an absent or empty `parameters` both arrive as `[:]`).
    public var parameters: [String: JSONValue]
    /// The caller wants no reply: the method runs and nothing is sent back, not even an error.
    public var oneway: Bool
    /// The caller accepts several replies (a subscription): all but the last have `continues`.
    public var more: Bool
    /// After the reply the connection leaves Varlink for the method's own protocol.
    public var upgrade: Bool

    /// A call to `method` (qualified by its interface); `oneway` and `more` exclude each other.
    public init(
        method: String,
        parameters: [String: JSONValue] = [:],
        oneway: Bool = false,
        more: Bool = false,
        upgrade: Bool = false
    ) {
        self.method = method
        self.parameters = parameters
        self.oneway = oneway
        self.more = more
        self.upgrade = upgrade
    }

    /// `org.varlink.service` of `org.varlink.service.GetInfo`.
    public var interface: Substring { method.lastIndex(of: ".").map { method[..<$0] } ?? "" }
    /// `GetInfo` of `org.varlink.service.GetInfo`.
    public var member: Substring {
        method.lastIndex(of: ".").map { method[method.index(after: $0)...] } ?? Substring(method)
    }
}

/// A reply: `{"parameters": {…}, "continues"?: true, "error"?: "iface.Error"}`.
public struct VarlinkReply: Sendable, Hashable {
    /// The reply's parameters; for an error reply, the error's.
    public var parameters: [String: JSONValue]
    /// More replies to the same call follow; only in answer to a call with `more`.
    public var continues: Bool
    /// Set for an error reply: the qualified error name.
    public var error: String?

    /// Parameters already encoded (and checked) once for many recipients; `parameters` is then empty.
    public var prepared: [UInt8]?

    /// A reply, or with `error` an error reply.
    public init(parameters: [String: JSONValue] = [:], continues: Bool = false, error: String? = nil) {
        self.parameters = parameters
        self.continues = continues
        self.error = error
    }

    init(prepared: [UInt8], continues: Bool) {
        self.init(continues: continues)
        self.prepared = prepared
    }

    /// An error reply, the last of its call.
    public static func error(_ name: String, _ parameters: [String: JSONValue] = [:]) -> VarlinkReply {
        VarlinkReply(parameters: parameters, error: name)
    }
}

/// Why bytes were not a valid Varlink message.
public struct VarlinkProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. `"parameters" must be an object`.
    public var message: String
    /// A protocol error with this explanation.
    public init(_ message: String) { self.message = message }
    /// The message alone.
    public var description: String { message }
}

extension VarlinkCall {
    /// Decodes one message (the bytes before its NUL terminator).
    ///
    /// Unknown top-level keys are accepted only when namespaced (they contain a "."), as the
    /// Varlink specification allows for extensions; anything else is a protocol error.
    /// - Throws: `VarlinkProtocolError` if the bytes are not a JSON object, `method` is missing or
    ///   not qualified, a field has the wrong type, `oneway` and `more` are both set, or a key is unknown.
    public init(decoding bytes: some Collection<UInt8>) throws(VarlinkProtocolError) {
        let object = try decodeObject(bytes)
        guard case .string(let method)? = object["method"] else {
            throw VarlinkProtocolError(
                object["method"] == nil ? "a call needs a \"method\"" : "\"method\" must be a string"
            )
        }
        guard let dot = method.lastIndex(of: "."), dot != method.startIndex, method.index(after: dot) != method.endIndex
        else {
            throw VarlinkProtocolError(
                "\"method\" must be qualified by its interface, e.g. org.varlink.service.GetInfo"
            )
        }
        self.method = method
        parameters = try parametersObject(object["parameters"])
        oneway = try flag(object, "oneway")
        more = try flag(object, "more")
        upgrade = try flag(object, "upgrade")
        if oneway && more { throw VarlinkProtocolError("\"oneway\" and \"more\" exclude each other") }
        for key in object.keys
        where !["method", "parameters", "oneway", "more", "upgrade"].contains(key) && !key.contains(".") {
            throw VarlinkProtocolError("unknown key \"\(key)\" in a call (extensions must be namespaced)")
        }
    }

    /// The message bytes, NUL terminator included.
    public func encoded() -> [UInt8] {
        var object: [String: JSONValue] = ["method": .string(method)]
        if !parameters.isEmpty { object["parameters"] = .object(parameters) }
        if oneway { object["oneway"] = .bool(true) }
        if more { object["more"] = .bool(true) }
        if upgrade { object["upgrade"] = .bool(true) }
        var out = JSONWriter.bytes(.object(object))
        out.append(0)
        return out
    }
}

extension VarlinkReply {
    /// Decodes one reply message (the bytes before its NUL terminator), as a client reads it.
    ///
    /// Unknown top-level keys are accepted only when namespaced (they contain a "."), as for calls.
    /// - Throws: `VarlinkProtocolError` if the bytes are not a JSON object, `parameters` is not an
    ///   object, `continues` not a bool, `error` not a string, or a key is unknown.
    public init(decoding bytes: some Collection<UInt8>) throws(VarlinkProtocolError) {
        let object = try decodeObject(bytes)
        parameters = try parametersObject(object["parameters"])
        continues = try flag(object, "continues")
        switch object["error"] {
        case nil: error = nil
        case .string(let name)?: error = name
        default: throw VarlinkProtocolError("\"error\" must be a string")
        }
        for key in object.keys where !["parameters", "continues", "error"].contains(key) && !key.contains(".") {
            throw VarlinkProtocolError("unknown key \"\(key)\" in a reply (extensions must be namespaced)")
        }
    }

    /// The message bytes, NUL terminator included.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        out.append(0x7B)
        var first = true
        func key(_ name: String) {
            if !first { out.append(0x2C) }
            first = false
            JSONWriter.writeString(name, into: &out)
            out.append(0x3A)
        }
        if let error {
            key("error")
            JSONWriter.writeString(error, into: &out)
        }
        if continues {
            key("continues")
            out += Array("true".utf8)
        }
        key("parameters")
        if let prepared { out += prepared } else { JSONWriter.write(.object(parameters), into: &out) }
        out.append(0x7D)
        out.append(0)
        return out
    }
}

private func decodeObject(_ bytes: some Collection<UInt8>) throws(VarlinkProtocolError) -> [String: JSONValue] {
    let value: JSONValue
    do { value = try JSONParser.parse(bytes) } catch {
        throw VarlinkProtocolError("not valid JSON")
    }
    guard case .object(let object) = value else { throw VarlinkProtocolError("a message must be a JSON object") }
    return object
}

private func parametersObject(_ value: JSONValue?) throws(VarlinkProtocolError) -> [String: JSONValue] {
    switch value {
    case nil: return [:]
    case .object(let object)?: return object
    default: throw VarlinkProtocolError("\"parameters\" must be an object")
    }
}

private func flag(_ object: [String: JSONValue], _ key: String) throws(VarlinkProtocolError) -> Bool {
    switch object[key] {
    case nil: return false
    case .bool(let b)?: return b
    default: throw VarlinkProtocolError("\"\(key)\" must be true or false")
    }
}
