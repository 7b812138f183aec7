import Testing
import UnixSockets

#if canImport(Glibc)
import Glibc
#endif

/// The one place a `sockaddr_un` is built: the 108-byte `sun_path` limit at its boundary, on
/// real sockets.
@Suite struct UnixSocketAddressTests {
    /// A fresh directory for socket files; removed with its contents by `cleanUp`.
    static func directory() -> String {
        var template = Array("/tmp/usa-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    /// A path of exactly `length` bytes inside `directory`.
    static func path(in directory: String, length: Int) -> String {
        let prefix = directory + "/"
        return prefix + String(repeating: "s", count: length - prefix.utf8.count)
    }

    @Test func theLimitIs107BytesAndTheNUL() {
        #expect(UnixSocketAddress.capacity == 108)
        #expect(UnixSocketAddress.maximumPathLength == 107)
    }

    /// 107 bytes and the NUL fill sun_path: bound, connected to, read back; 108 are refused
    /// before any socket is touched, naming the path, its length and the limit.
    @Test func aPathAtTheLimitWorksAndOnePastIsRefused() throws {
        let directory = Self.directory()
        defer { rmdir(directory) }
        let longest = Self.path(in: directory, length: 107)
        let address = try UnixSocketAddress(longest)
        let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer {
            close(server)
            unlink(longest)
        }
        #expect(address.bind(server) == 0, "bind: errno \(errno)")
        #expect(listen(server, 1) == 0)
        #expect(UnixSocketAddress.bound(to: server)?.path == longest)
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        #expect(address.connect(client) == 0, "connect: errno \(errno)")

        let tooLong = Self.path(in: directory, length: 108)
        #expect(throws: UnixSocketAddress.AddressError.tooLong(tooLong, length: 108, maximum: 107)) {
            try UnixSocketAddress(tooLong)
        }
        #expect(access(tooLong, F_OK) != 0)
        do {
            _ = try UnixSocketAddress(tooLong)
            Issue.record("a 108-byte path was accepted")
        } catch {
            #expect(error.description == "\(tooLong): a Unix socket address has at most 107 bytes; this one has 108")
        }
    }

    /// An abstract name ("@" for the leading NUL) may use all 108 bytes: 107 after the "@".
    @Test func anAbstractNameAtTheLimitWorksAndOnePastIsRefused() throws {
        let name = "curtain-\(getpid())-"
        let longest = "@" + name + String(repeating: "a", count: 107 - name.utf8.count)
        let address = try UnixSocketAddress(longest)
        #expect(address.isAbstract)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        #expect(address.bind(fd) == 0, "bind: errno \(errno)")
        #expect(UnixSocketAddress.bound(to: fd)?.path == longest)
        let tooLong = longest + "a"
        #expect(throws: UnixSocketAddress.AddressError.tooLong(tooLong, length: 108, maximum: 107)) {
            try UnixSocketAddress(tooLong)
        }
    }

    @Test func emptyAndNULAreRefused() {
        #expect(throws: UnixSocketAddress.AddressError.empty) { try UnixSocketAddress("") }
        #expect(throws: UnixSocketAddress.AddressError.empty) { try UnixSocketAddress("@") }
        #expect(throws: UnixSocketAddress.AddressError.containsNUL("/tmp/a\0b")) { try UnixSocketAddress("/tmp/a\0b") }
    }
}
