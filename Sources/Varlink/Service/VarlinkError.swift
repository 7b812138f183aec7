/// An error reply: a qualified error name and its parameters. Handlers throw it to answer a
/// call with an error; clients receive it when the service replies with one.
public struct VarlinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Qualified, e.g. `org.varlink.service.InvalidParameter`: the `error` of the reply.
    public var name: String
    /// The error reply's parameters, sent as they are (a service does not check them against the
    /// interface's `error` definition).
    public var parameters: [String: JSONValue]

    /// - Parameters:
    ///   - name: The qualified error name, normally an `error` of the method's interface.
    ///   - parameters: Its parameters, as the interface defines them.
    public init(_ name: String, _ parameters: [String: JSONValue] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    /// The name, followed by the parameters as JSON with sorted keys when there are any.
    public var description: String {
        parameters.isEmpty ? name : "\(name) \(JSONWriter.string(.object(parameters), sortedKeys: true))"
    }

    // org.varlink.service's errors.
    /// The call names an interface the service does not have.
    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InterfaceNotFound", ["interface": .string(interface)])
    }
    /// The interface has no method of that name; `method` is the qualified name of the call.
    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotFound", ["method": .string(method)])
    }
    /// The interface defines the method but no handler was registered for it.
    public static func methodNotImplemented(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotImplemented", ["method": .string(method)])
    }
    /// A parameter is missing, unknown or of the wrong type; `parameter` names the top-level field.
    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InvalidParameter", ["parameter": .string(parameter)])
    }
    /// The caller may not call this method (handlers throw it after looking at `Request.peer`).
    public static let permissionDenied = VarlinkError("org.varlink.service.PermissionDenied")
    /// The method only makes sense as a subscription and was called without `more`.
    public static let expectedMore = VarlinkError("org.varlink.service.ExpectedMore")

    /// Not part of org.varlink.service: what a call gets when its handler failed with an
    /// error that is not a `VarlinkError` (the cause is logged by the server, not sent).
    public static let internalErrorName = "io.curtain.varlink.InternalError"

    /// The final reply of a call (a stream, typically) that the server's shutdown interrupted.
    public static let shuttingDownName = "io.curtain.varlink.ShuttingDown"
}

/// Who is calling, from the socket (SO_PEERCRED): for handlers that authorise.
public struct PeerCredentials: Sendable, Hashable {
    /// The process that connected (the kernel records it at `connect`; it may have exited since).
    public var pid: Int32
    /// The peer's effective user id when it connected: what authorisation looks at.
    public var uid: UInt32
    /// The peer's effective group id when it connected.
    public var gid: UInt32
    /// Credentials as given; transports read them from the socket, tests make them up.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}
