import JSON
import UnixSockets
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// A blocking Varlink client on a Unix socket: what a command-line tool needs, without an
/// event loop to start (curtainctl must start in about a millisecond).
public struct DaemonClient {
    public enum ClientError: Error, CustomStringConvertible {
        /// No daemon answered on any of these paths (path, why).
        case unreachable([(String, String)])
        /// The daemon answered with a Varlink error.
        case daemon(String, [String: JSONValue])
        case broken(String)

        public var description: String {
            switch self {
            case .unreachable(let tried):
                "no curtaind answers (tried " + tried.map { "\($0.0): \($0.1)" }.joined(separator: "; ")
                    + "); start it with `systemctl start curtaind.socket`, or pass --socket PATH"
            case .daemon(let name, let parameters):
                parameters.isEmpty ? name : "\(name) \(JSONWriter.string(.object(parameters), sortedKeys: true))"
            case .broken(let why): "the connection broke: \(why)"
            }
        }
    }

    public let fd: Int32
    public let path: String
    private var pending: [UInt8] = []

    /// The socket: --socket, then $CURTAIN_SOCKET, then the system path, then the user's.
    public static func candidates(explicit: String?) -> [String] {
        if let explicit { return [explicit] }
        var paths: [String] = []
        if let value = getenv("CURTAIN_SOCKET").map({ String(cString: $0) }), !value.isEmpty { paths.append(value) }
        paths.append("/run/curtain/io.curtain.Launcher")
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
            paths.append(runtime + "/curtain/io.curtain.Launcher")
        }
        return paths
    }

    public static func connect(explicit: String?) throws(ClientError) -> DaemonClient {
        var tried: [(String, String)] = []
        for path in candidates(explicit: explicit) {
            let address: UnixSocketAddress
            do { address = try UnixSocketAddress(path) } catch {
                tried.append((path, error.description))
                continue
            }
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if address.connect(fd) == 0 { return DaemonClient(fd: fd, path: path) }
            tried.append((path, String(cString: strerror(errno))))
            Glibc.close(fd)
        }
        throw .unreachable(tried)
    }

    public func close() { _ = Glibc.close(fd) }

    /// One call, one reply.
    public mutating func call(
        _ method: String,
        _ parameters: [String: JSONValue] = [:]
    ) throws(ClientError) -> [String: JSONValue] {
        try send(VarlinkCall(method: method, parameters: parameters))
        return try receive().parameters
    }

    /// A call with more: `each` gets every reply until the last; it may return false to stop.
    public mutating func stream(
        _ method: String,
        _ parameters: [String: JSONValue] = [:],
        _ each: ([String: JSONValue]) throws(ClientError) -> Bool
    ) throws(ClientError) {
        try send(VarlinkCall(method: method, parameters: parameters, more: true))
        while true {
            let reply = try receive()
            guard try each(reply.parameters), reply.continues else { return }
        }
    }

    private func send(_ call: VarlinkCall) throws(ClientError) {
        let bytes = call.encoded()  // NUL-terminated already
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .broken(String(cString: strerror(errno)))
            }
            offset += n
        }
    }

    private mutating func receive() throws(ClientError) -> VarlinkReply {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = pending.firstIndex(of: 0) {
                let message = pending[..<end]
                defer { pending.removeSubrange(...end) }
                let reply: VarlinkReply
                do { reply = try VarlinkReply(decoding: message) } catch { throw .broken("\(error)") }
                if let error = reply.error { throw .daemon(error, reply.parameters) }
                return reply
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .broken(String(cString: strerror(errno)))
            }
            if n == 0 { throw .broken("the daemon closed the connection") }
            pending += buffer[0..<n]
        }
    }
}
