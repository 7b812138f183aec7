#if canImport(Glibc)
import Glibc
#endif
import CurtainTestKit
import Testing
@testable import VarlinkNIO

/// A burst of connects from one process, non-blocking as Python's socket with a timeout does
/// them: the listen backlog must hold what the accept loop has not reached yet. With a backlog
/// of 512 about half of 3000 were refused with EAGAIN; systemd's sockets listen with SOMAXCONN.
@Suite struct ConnectionStormTests {
    static let burst = 3000

    @Test(.timeLimit(.minutes(1))) func aBurstOfConnectsIsAllAcceptedAndAHealthyClientIsServed() async throws {
        // Both ends live in this process: 2 descriptors per connection.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let needed = rlim_t(2 * Self.burst + 256)
        if limit.rlim_cur < needed, limit.rlim_max >= needed {
            limit.rlim_cur = needed
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        guard limit.rlim_cur >= needed else {
            if TestEnvironment.inCI { Issue.record("RLIMIT_NOFILE hard limit \(limit.rlim_max) < \(needed)") }
            return
        }
        var configuration = VarlinkServer.Configuration()
        configuration.maximumConnections = Self.burst + 16
        configuration.maximumConnectionsPerUID = Self.burst + 16
        try await withServer(configuration) { path, _ in
            var descriptors: [Int32] = []
            var refused: [Int32: Int] = [:]
            defer { descriptors.forEach { close($0) } }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            for _ in 0..<Self.burst {
                let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                try #require(fd >= 0)
                descriptors.append(fd)
                let result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
                if result != 0 { refused[errno, default: 0] += 1 }
            }
            #expect(refused.isEmpty, "refused connects by errno: \(refused) (EAGAIN is \(EAGAIN))")
            // A healthy client right after the burst, with all of it still connected.
            let healthy = try RawSocket(path: path)
            healthy.send(#"{"method":"org.varlink.service.GetInfo"}"# + "\0")
            // Served, not starved behind the burst (how fast is make bench's business: an idle
            // machine answers in well under the issue's 2 s; a loaded test run may not).
            let (messages, _) = await healthy.receive(messages: 1, timeout: 10)
            #expect(messages.count == 1 && messages[0].contains("org.varlink.service"), "no answer within 10 s")
        }
    }
}
