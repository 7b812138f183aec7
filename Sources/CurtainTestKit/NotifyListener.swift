import Foundation
import UnixSockets

#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket standing in for the service manager's NOTIFY_SOCKET.
public final class NotifyListener: Sendable {
    public let path: String
    private let fd: Int32

    public init(directory: URL) {
        path = directory.appendingPathComponent("notify").path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let address: UnixSocketAddress
        do { address = try UnixSocketAddress(path) } catch { preconditionFailure("\(error)") }
        precondition(address.bind(fd) == 0, "cannot bind \(path): errno \(errno)")
    }
    deinit { close(fd) }

    /// The next datagram, or nil after `timeout` seconds.
    public func next(timeout: Double = 15) async -> String? {
        let fd = self.fd
        return await offload {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
        }
    }

    /// Datagrams until one satisfies `predicate` (watchdog pings may come in between).
    public func await(timeout: Double = 15, _ predicate: (String) -> Bool) async -> (matched: String?, seen: [String]) {
        var seen: [String] = []
        while let message = await next(timeout: timeout) {
            seen.append(message)
            if predicate(message) { return (message, seen) }
        }
        return (nil, seen)
    }
}

/// Why `connectUnixSocket` failed: the errno of the call that failed.
public struct ConnectFailure: Error, Hashable, CustomStringConvertible {
    public let errno: Int32
    public var description: String { String(cString: strerror(errno)) }
}

/// A stream socket connected to the Unix socket at `path` (a path longer than sun_path is
/// refused with ENAMETOOLONG): the descriptor, or the connect's errno (EAGAIN for a full
/// backlog when `nonBlocking`). A connecting non-blocking socket counts as connected.
public func connectUnixSocket(_ path: String, nonBlocking: Bool = false) -> Result<Int32, ConnectFailure> {
    let address: UnixSocketAddress
    do { address = try UnixSocketAddress(path) } catch {
        if case .tooLong = error { return .failure(ConnectFailure(errno: ENAMETOOLONG)) }
        return .failure(ConnectFailure(errno: EINVAL))
    }
    let flags =
        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
    let fd = socket(AF_UNIX, flags, 0)
    guard fd >= 0 else { return .failure(ConnectFailure(errno: errno)) }
    if address.connect(fd) != 0 && !(nonBlocking && errno == EINPROGRESS) {
        let code = errno
        close(fd)
        return .failure(ConnectFailure(errno: code))
    }
    return .success(fd)
}

/// One Varlink call over a Unix socket as raw bytes (NUL-terminated JSON), with a bounded wait:
/// the reply's text, or nil.
public func rawVarlinkCall(_ path: String, _ message: String, timeout: Double = 15) async -> String? {
    await offload {
        guard case .success(let fd) = connectUnixSocket(path) else { return nil }
        defer { close(fd) }
        let bytes = Array((message + "\0").utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(0) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            reply += buffer[0..<n]
        }
        return reply.contains(0) ? String(decoding: reply.prefix { $0 != 0 }, as: UTF8.self) : nil
    }
}
