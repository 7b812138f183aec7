/// An error reply: a qualified error name and its parameters. Handlers throw it to answer a
/// call with an error; clients receive it when the service replies with one.
public struct VarlinkError: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var parameters: [String: JSONValue]

    public init(_ name: String, _ parameters: [String: JSONValue] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    public var description: String {
        parameters.isEmpty ? name : "\(name) \(JSONWriter.string(.object(parameters), sortedKeys: true))"
    }

    // org.varlink.service's errors.
    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InterfaceNotFound", ["interface": .string(interface)])
    }
    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotFound", ["method": .string(method)])
    }
    public static func methodNotImplemented(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotImplemented", ["method": .string(method)])
    }
    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InvalidParameter", ["parameter": .string(parameter)])
    }
    public static let permissionDenied = VarlinkError("org.varlink.service.PermissionDenied")
    public static let expectedMore = VarlinkError("org.varlink.service.ExpectedMore")

    /// Not part of org.varlink.service: what a call gets when its handler failed with an
    /// error that is not a `VarlinkError` (the cause is logged by the server, not sent).
    public static let internalErrorName = "io.curtain.varlink.InternalError"

    /// The final reply of a call (a stream, typically) that the server's shutdown interrupted.
    public static let shuttingDownName = "io.curtain.varlink.ShuttingDown"
}

/// Who is calling, from the socket (SO_PEERCRED): for handlers that authorise.
public struct PeerCredentials: Sendable, Hashable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}
