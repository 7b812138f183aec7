import Glibc
import Testing

@testable import VarlinkNIO

/// `SocketPoller` holds a thread and a wake-up pipe only while some writer's socket is full:
/// once the peer has read everything (and the linger has passed) both are gone, so a daemon's
/// descriptors return to the idle count after slow observers; a later stall starts it again.
@Suite struct SocketPollerTests {
    /// A connected pair of Unix stream sockets: (the writer's end, the reader's end).
    static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        return (ends[0], ends[1])
    }

    /// Writes until the socket refuses part of it: the writer then waits on the poller.
    static func fill(_ writer: SocketWriter) -> Int {
        let message = [UInt8](repeating: 0x61, count: 4096) + [0]
        var bytes = 0
        while writer.waiting == nil {
            writer.write(message, replaceable: false)
            bytes += message.count
        }
        return bytes
    }

    /// Reads until `count` bytes came or the writer's socket is closed.
    static func read(_ fd: Int32, count: Int) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var total = 0
        while total < count {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n <= 0 { return }
            total += n
        }
    }

    /// The inode behind a descriptor, or nil if it is not open.
    static func inode(_ fd: Int32) -> ino_t? {
        var info = stat()
        return fstat(fd, &info) == 0 ? info.st_ino : nil
    }

    /// Polls `condition` every millisecond, at most `timeout`.
    static func eventually(within timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            // The poll interval of a bounded wait: a descriptor's closing sends no event.
            try? await Task.sleep(for: .milliseconds(1))  // ok-sleep
        }
        return true
    }

    @Test func theThreadAndItsPipeExistOnlyWhileASocketIsFull() async throws {
        let poller = SocketPoller(linger: .milliseconds(20))
        #expect(poller.running.pipe == nil)
        #expect(poller.running.started == 0)

        let (mine, peer) = try Self.socketPair()
        defer { close(peer) }
        let writer = SocketWriter(fd: mine, poller: poller)
        defer { writer.close() }

        for round in 1...2 {
            let bytes = Self.fill(writer)
            let pipe = try #require(poller.running.pipe)
            #expect(poller.running.started == round)
            let inodes = (Self.inode(pipe.read), Self.inode(pipe.write))
            #expect(inodes.0 != nil && inodes.0 == inodes.1)

            // The poller writes the rest as the peer reads it.
            async let read: Void = Self.read(peer, count: bytes)
            #expect(await writer.drained())
            await read

            #expect(await Self.eventually { poller.running.pipe == nil })
            // Both ends closed (or their numbers reused by some other file).
            #expect(Self.inode(pipe.read) != inodes.0 || Self.inode(pipe.read) == nil)
            #expect(Self.inode(pipe.write) != inodes.1 || Self.inode(pipe.write) == nil)
        }
    }
}
