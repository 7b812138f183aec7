import CurtainTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `curtainctl ping` and `ping --socket PATH` take a fast path (PingFastPath, no ArgumentParser);
/// `ping --json off …` is the same command through the ordinary one. Whatever happens, both
/// must answer alike: the same output, the same error text, the same exit status.
@Suite(.serialized) struct PingFastPathTests {
    typealias Outcome = (status: Int32, stdout: String, stderr: String)

    static func ctl(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> Outcome {
        try await TestProcess.run(CLI.executable, arguments, environment: environment)
    }

    /// The fast form of `arguments` (as given) and its ordinary twin (`--json off` added).
    static func both(
        _ arguments: [String],
        _ environment: [String: String] = [:]
    ) async throws -> (fast: Outcome, ordinary: Outcome) {
        (try await ctl(arguments, environment), try await ctl(arguments + ["--json", "off"], environment))
    }

    /// The round trip's time differs from run to run; everything else must not.
    static func withoutTime(_ text: String) -> String {
        text.replacingOccurrences(of: #" in [0-9]+ µs"#, with: " in N µs", options: .regularExpression)
    }

    @Test(.timeLimit(.minutes(1))) func aRealDaemonGetsTheSamePong() async throws {
        let (daemon, socket) = try await DaemonCommandTests.daemon()
        let explicit = try await Self.both(["ping", "--socket", socket])
        #expect(explicit.fast.status == 0 && explicit.fast.stderr.isEmpty, "\(explicit.fast)")
        #expect(Self.withoutTime(explicit.fast.stdout) == "pong from \(socket) in N µs\n", "\(explicit.fast)")
        #expect(Self.withoutTime(explicit.fast.stdout) == Self.withoutTime(explicit.ordinary.stdout), "\(explicit)")
        #expect(explicit.fast.status == explicit.ordinary.status && explicit.fast.stderr == explicit.ordinary.stderr)

        // Without --socket: $CURTAIN_SOCKET, as the ordinary path finds it.
        let found = try await Self.both(["ping"], ["CURTAIN_SOCKET": socket])
        #expect(
            found.fast.status == 0 && Self.withoutTime(found.fast.stdout) == "pong from \(socket) in N µs\n",
            "\(found.fast)"
        )
        #expect(Self.withoutTime(found.fast.stdout) == Self.withoutTime(found.ordinary.stdout))
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }

    @Test func noDaemonIsTheSameErrorAndStatusThree() async throws {
        let directory = TestEnvironment.temporaryDirectory("ping-none")
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.sock").path
        let explicit = try await Self.both(["ping", "--socket", missing])
        #expect(explicit.fast.status == 3 && explicit.fast.stdout.isEmpty, "\(explicit.fast)")
        #expect(
            explicit.fast.stderr
                == "curtainctl: no curtaind answers (tried \(missing): No such file or directory); start it with `systemctl start curtaind.socket`, or pass --socket PATH\n"
        )
        #expect(explicit.fast == explicit.ordinary, "\(explicit)")

        // Every candidate tried, in order, as the ordinary path lists them.
        let environment = ["CURTAIN_SOCKET": missing, "XDG_RUNTIME_DIR": directory.path]
        let candidates = try await Self.both(["ping"], environment)
        #expect(
            candidates.fast.status == 3
                && candidates.fast.stderr.contains(
                    "\(missing): No such file or directory; /run/curtain/io.curtain.Launcher: "
                )
                && candidates.fast.stderr.contains(
                    "\(directory.path)/curtain/io.curtain.Launcher: No such file or directory"
                ),
            "\(candidates.fast)"
        )
        #expect(candidates.fast == candidates.ordinary, "\(candidates)")

        // A path longer than a socket address can hold.
        let long = "/" + String(repeating: "x", count: 200)
        let tooLong = try await Self.both(["ping", "--socket", long])
        #expect(
            tooLong.fast.status == 3
                && tooLong.fast.stderr.contains(
                    "\(long): a Unix socket address has at most 107 bytes; this one has 201"
                ),
            "\(tooLong.fast)"
        )
        #expect(tooLong.fast == tooLong.ordinary)
    }

    /// A peer that answers something other than the one reply the fast path accepts: an error
    /// (status 1, named as the ordinary path names it), the same answer spelled differently
    /// (still a pong), and a connection closed without an answer.
    @Test(.timeLimit(.minutes(1))) func otherRepliesAreAnsweredAsTheOrdinaryPathAnswersThem() async throws {
        let error = try ScriptedPeer(
            reply: #"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"io.curtain.Launcher.Ping"}}"#
        )
        defer { error.stop() }
        let refused = try await Self.both(["ping", "--socket", error.path])
        #expect(refused.fast.status == 1 && refused.fast.stdout.isEmpty, "\(refused.fast)")
        #expect(
            refused.fast.stderr
                == #"curtainctl: org.varlink.service.MethodNotFound {"method":"io.curtain.Launcher.Ping"}"# + "\n",
            "\(refused.fast)"
        )
        #expect(refused.fast == refused.ordinary, "\(refused)")
        // Both sent the same request.
        #expect(Set(error.requests) == [#"{"method":"io.curtain.Launcher.Ping"}"#], "\(error.requests)")

        let spaced = try ScriptedPeer(reply: #"{ "parameters" : { } }"#)
        defer { spaced.stop() }
        let pong = try await Self.both(["ping", "--socket", spaced.path])
        #expect(
            pong.fast.status == 0 && Self.withoutTime(pong.fast.stdout) == "pong from \(spaced.path) in N µs\n",
            "\(pong.fast)"
        )
        #expect(Self.withoutTime(pong.fast.stdout) == Self.withoutTime(pong.ordinary.stdout))

        let silent = try ScriptedPeer(reply: nil)
        defer { silent.stop() }
        let broken = try await Self.both(["ping", "--socket", silent.path])
        #expect(
            broken.fast.status == 1
                && broken.fast.stderr == "curtainctl: the connection broke: the daemon closed the connection\n",
            "\(broken.fast)"
        )
        #expect(broken.fast == broken.ordinary, "\(broken)")
    }

    @Test func badOptionsAreUsageErrors() async throws {
        // `ping --socket` without its value, and an option ping does not have: ArgumentParser's words, status 2.
        let missing = try await Self.ctl(["ping", "--socket"])
        #expect(missing.status == 2 && missing.stderr.contains("Missing value for '--socket <path>'"), "\(missing)")
        let unknown = try await Self.ctl(["ping", "--sockets", "/tmp/x"])
        #expect(unknown.status == 2 && unknown.stderr.contains("Unknown option '--sockets'"), "\(unknown)")
        let extra = try await Self.ctl(["ping", "now"])
        #expect(extra.status == 2 && extra.stderr.contains("Unexpected argument 'now'"), "\(extra)")
        let help = try await Self.ctl(["ping", "--help"])
        #expect(
            help.status == 0 && help.stdout.contains("USAGE: curtainctl ping")
                && help.stdout.contains("--socket <path>"),
            "\(help)"
        )
    }
}

/// A Unix socket that answers every connection's first message with `reply` (NUL added), or
/// closes it unanswered when `reply` is nil; it records each request.
final class ScriptedPeer: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let directory: URL
    private let lock = NSLock()
    private var received: [String] = []
    private let done = DispatchSemaphore(value: 0)

    var requests: [String] { lock.withLock { received } }

    init(reply: String?) throws {
        directory = TestEnvironment.temporaryDirectory("ping-peer")
        path = directory.appendingPathComponent("peer.sock").path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let listener = fd
        let thread = Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { break }  // the listener was shut down
                var request: [UInt8] = []
                var byte: UInt8 = 0
                while recv(client, &byte, 1, 0) == 1, byte != 0 { request.append(byte) }
                lock.withLock { received.append(String(decoding: request, as: UTF8.self)) }
                if let reply {
                    let bytes = Array(reply.utf8) + [0]
                    _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                close(client)
            }
            done.signal()
        }
        thread.start()
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        _ = done.wait(timeout: .now() + 5)
        close(fd)
        try? FileManager.default.removeItem(at: directory)
    }
}
