import CurtainctlSupport

#if canImport(Glibc)
import Glibc
#endif

/// `curtainctl ping` and `curtainctl ping --socket PATH` when all goes well, in the fewest
/// instructions and pages the process can touch: a liveness probe is the one command scripts
/// run in a loop, and as a whole process it is measured against `plymouth --ping`
/// (BENCHMARKS.md, scenario 1). It works on argv's C strings, writes the one fixed request as
/// bytes and accepts only the one fixed reply, so no command tree, no dictionaries, no JSON
/// and no generic metadata are built (each of those showed in callgrind).
///
/// It answers success, and no daemon on any path (with the ordinary path's own DaemonClient
/// error). Anything else — an error reply, a reply in another form, a broken connection,
/// other arguments — returns nil and the ordinary path (`PingCommand`) runs the command from
/// the start, so every error's text and exit status are the ordinary path's by construction.
/// (Ping changes nothing, so asking again is harmless.)
enum PingFastPath {
    static let request: StaticString = #"{"method":"io.curtain.Launcher.Ping"}"#
    static let reply: StaticString = #"{"parameters":{}}"#
    /// Room for the one reply accepted; a longer one is left to the ordinary path.
    static let replyCapacity = 64

    static func run(argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32? {
        guard argc == 2 || argc == 4, let command = argv[1], strcmp(command, "ping") == 0 else { return nil }
        if argc == 4 {
            guard let option = argv[2], strcmp(option, "--socket") == 0, let path = argv[3] else { return nil }
            let outcome = ping(path)
            return outcome.unreachable ? unreachable(explicit: path) : outcome.status
        }
        // The candidates of `DaemonClient.candidates(explicit: nil)`, in its order: the first
        // that accepts the connection answers (as there).
        if let value = getenv("CURTAIN_SOCKET"), value[0] != 0, case let outcome = ping(value), !outcome.unreachable {
            return outcome.status
        }
        if case let outcome = ping("/run/curtain/io.curtain.Launcher"), !outcome.unreachable { return outcome.status }
        guard let runtime = getenv("XDG_RUNTIME_DIR"), runtime[0] != 0 else { return unreachable(explicit: nil) }
        let suffix: StaticString = "/curtain/io.curtain.Launcher"
        let length = strlen(runtime)
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + suffix.utf8CodeUnitCount + 1) {
            buffer in
            memcpy(buffer.baseAddress!, runtime, length)
            memcpy(buffer.baseAddress! + length, suffix.utf8Start, suffix.utf8CodeUnitCount + 1)  // with its NUL
            let outcome = ping(buffer.baseAddress!)
            return outcome.unreachable ? unreachable(explicit: nil) : outcome.status
        }
    }

    /// No candidate accepted a connection: the ordinary path's error (DaemonClient's words,
    /// status 3, as `DaemonOptions.withDaemon` reports it) without building the command tree,
    /// which costs ~4 ms more (a script waiting for the daemon with `until curtainctl ping`
    /// runs this). Should a candidate accept now, the ordinary path runs after all.
    private static func unreachable(explicit: UnsafePointer<CChar>?) -> Int32? {
        do { try DaemonClient.connect(explicit: explicit.map { String(cString: $0) }).close() } catch {
            fail(error.description, status: 3)
        }
        return nil
    }

    /// What one Ping on one path came to: `unreachable` (no connection: the next candidate is
    /// tried), or `status`, nil when anything but the expected reply happened.
    private struct Outcome {
        var unreachable = false
        var status: Int32?
    }

    private static func ping(_ path: UnsafePointer<CChar>) -> Outcome {
        var address = sockaddr_un()
        let length = strlen(path)
        guard length < MemoryLayout.size(ofValue: address.sun_path) else { return Outcome(unreachable: true) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return Outcome() }
        defer { close(fd) }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { _ = memcpy($0.baseAddress!, path, length) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return Outcome(unreachable: true) }

        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        // The request with its NUL terminator (a StaticString's storage ends with one).
        let sent = send(fd, request.utf8Start, request.utf8CodeUnitCount + 1, Int32(MSG_NOSIGNAL))
        guard sent == request.utf8CodeUnitCount + 1 else { return Outcome() }
        let matched = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: replyCapacity) { buffer -> Bool in
            var received = 0
            while received < buffer.count {
                let n = recv(fd, buffer.baseAddress! + received, buffer.count - received, 0)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                received += n
                if buffer[received - 1] == 0 { break }
            }
            // Exactly the reply and its terminator, nothing after it.
            return received == reply.utf8CodeUnitCount + 1 && buffer[received - 1] == 0
                && memcmp(buffer.baseAddress!, reply.utf8Start, reply.utf8CodeUnitCount) == 0
        }
        guard matched else { return Outcome() }
        clock_gettime(CLOCK_MONOTONIC, &end)
        printPong(path, (end.tv_sec - start.tv_sec) * 1_000_000 + (end.tv_nsec - start.tv_nsec) / 1000)
        return Outcome(status: 0)
    }

    /// "pong from PATH in N µs\n", as `PingCommand` prints it, in one write (whose failure,
    /// as `print`'s, changes nothing: the daemon answered).
    private static func printPong(_ path: UnsafePointer<CChar>, _ micros: Int) {
        let pathLength = strlen(path)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: pathLength + 64) { line in
            var count = 0
            func append(_ text: StaticString) {
                _ = memcpy(line.baseAddress! + count, text.utf8Start, text.utf8CodeUnitCount)
                count += text.utf8CodeUnitCount
            }
            append("pong from ")
            _ = memcpy(line.baseAddress! + count, path, pathLength)
            count += pathLength
            append(" in ")
            // The decimal digits of a non-negative number, most significant first.
            var digits = 1
            var rest = max(micros, 0)
            while rest >= 10 {
                rest /= 10
                digits += 1
            }
            rest = max(micros, 0)
            for index in stride(from: count + digits - 1, through: count, by: -1) {
                line[index] = UInt8(48 + rest % 10)
                rest /= 10
            }
            count += digits
            append(" µs\n")
            var written = 0
            while written < count {
                let n = write(1, line.baseAddress! + written, count - written)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return }
                written += n
            }
        }
    }
}
