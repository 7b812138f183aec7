#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A datagram socket standing in for the service manager's NOTIFY_SOCKET.
public final class NotifyListener: Sendable {
    public let path: String
    private let fd: Int32

    public init(directory: URL) {
        path = directory.appendingPathComponent("notify").path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        precondition(bound == 0, "cannot bind \(path): errno \(errno)")
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

/// One Varlink call over a Unix socket as raw bytes (NUL-terminated JSON), with a bounded wait:
/// the reply's text, or nil.
public func rawVarlinkCall(_ path: String, _ message: String, timeout: Double = 15) async -> String? {
    await offload {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard connected == 0 else { return nil }
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
