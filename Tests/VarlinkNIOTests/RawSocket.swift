import CurtainTestKit
import Foundation
import UnixSockets

#if canImport(Glibc)
import Glibc
#endif

/// A blocking Unix-socket client for tests that must send bytes no well-behaved client would:
/// partial messages, oversized ones. Every read waits with a bounded timeout.
final class RawSocket: @unchecked Sendable {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if try UnixSocketAddress(path).connect(fd) != 0 {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code)!)
        }
    }

    deinit { close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads until `count` NUL-terminated messages arrived, the peer closed, or `timeout`
    /// seconds passed without data. Returns the messages and whether the peer closed.
    /// Blocks a thread of its own, never one of the concurrency pool the server runs on.
    func receive(messages count: Int = .max, timeout: Double = 10) async -> (messages: [String], closed: Bool) {
        await offload { self.receiveBlocking(messages: count, timeout: timeout) }
    }

    private func receiveBlocking(messages count: Int, timeout: Double) -> (messages: [String], closed: Bool) {
        var buffer: [UInt8] = []
        var messages: [String] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while messages.count < count {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return (messages, false) }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (messages, true) }
            buffer += chunk[0..<n]
            while let nul = buffer.firstIndex(of: 0) {
                messages.append(String(decoding: buffer[..<nul], as: UTF8.self))
                buffer.removeSubrange(...nul)
            }
        }
        return (messages, false)
    }
}

/// A fresh socket path in a private temporary directory.
func temporarySocketPath(_ name: String = "test.sock") -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "varlink-\(getpid())-\(UUID().uuidString.prefix(8))"
    )
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent(name).path
}
