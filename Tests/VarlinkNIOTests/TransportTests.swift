import Foundation
import Testing
import UnixSockets
import Varlink

@testable import VarlinkNIO

#if canImport(Glibc)
import Glibc
#endif

@Suite struct TransportTests {
    @Test func callAndStreamOverTheSocket() async throws {
        try await withServer { path, _ in
            try await VarlinkConnection.withConnection(to: path) { connection in
                #expect(try await connection.call("org.example.test.Echo", ["text": "hello"]) == ["text": "hello"])
                var seen: [JSONValue] = []
                for try await reply in connection.callMore("org.example.test.Count", ["n": 3]) {
                    seen.append(reply["i"]!)
                }
                #expect(seen == [1, 2, 3])
                let info = try await connection.call("org.varlink.service.GetInfo")
                #expect(info["interfaces"] == ["org.example.test", "org.varlink.service"])
                await #expect(throws: VarlinkError.methodNotFound("org.example.test.Nope")) {
                    try await connection.call("org.example.test.Nope")
                }
            }
        }
    }

    /// 200 calls issued at once on one connection are answered in order, each to its caller.
    @Test func pipelinedCallsAreAnsweredInOrder() async throws {
        try await withServer { path, _ in
            try await VarlinkConnection.withConnection(to: path) { connection in
                try await withThrowingTaskGroup(of: (Int, [String: JSONValue]).self) { group in
                    for i in 0..<200 {
                        group.addTask {
                            (i, try await connection.call("org.example.test.Echo", ["text": .string("\(i)")]))
                        }
                    }
                    for try await (i, reply) in group { #expect(reply == ["text": .string("\(i)")]) }
                }
            }
            // And on the wire: three calls in one write, three replies in that order.
            let raw = try RawSocket(path: path)
            raw.send(
                #"{"method":"org.example.test.Echo","parameters":{"text":"a"}}"# + "\0"
                    + #"{"method":"org.example.test.Echo","parameters":{"text":"b"},"oneway":true}"# + "\0"
                    + #"{"method":"org.example.test.Echo","parameters":{"text":"c"}}"# + "\0"
            )
            let received = await raw.receive(messages: 2)
            #expect(received.messages == [#"{"parameters":{"text":"a"}}"#, #"{"parameters":{"text":"c"}}"#])
        }
    }

    @Test func peerCredentialsReachTheHandler() async throws {
        try await withServer { path, _ in
            try await VarlinkConnection.withConnection(to: path) { connection in
                let reply = try await connection.call("org.example.test.Peer")
                #expect(reply == ["pid": .int(Int64(getpid())), "uid": .int(Int64(getuid()))])
            }
        }
    }

    @Test func messageSizeLimitIsExact() async throws {
        var configuration = VarlinkServer.Configuration()
        configuration.maximumMessageSize = 200
        try await withServer(configuration) { path, _ in
            func message(size: Int) -> String {
                let skeleton = #"{"method":"org.example.test.Echo","parameters":{"text":""}}"#
                let text = String(repeating: "x", count: size - skeleton.utf8.count)
                return #"{"method":"org.example.test.Echo","parameters":{"text":"\#(text)"}}"#
            }
            let ok = try RawSocket(path: path)
            ok.send(message(size: 200) + "\0")
            let accepted = await ok.receive(messages: 1)
            #expect(accepted.messages.first?.hasPrefix(#"{"parameters":{"text":"xxx"#) == true)

            let big = try RawSocket(path: path)
            big.send(message(size: 201) + "\0")
            let refused = await big.receive()
            #expect(refused.closed)
            #expect(
                refused.messages == [
                    #"{"error":"io.curtain.varlink.ProtocolError","parameters":{"reason":"message larger than 200 bytes"}}"#
                ]
            )

            // The other client is unaffected.
            ok.send(message(size: 100) + "\0")
            #expect(await ok.receive(messages: 1).messages.count == 1)
        }
    }

    @Test func incompleteMessagesTimeOut() async throws {
        var configuration = VarlinkServer.Configuration()
        configuration.messageTimeout = .milliseconds(200)
        try await withServer(configuration) { path, _ in
            let slow = try RawSocket(path: path)
            slow.send(#"{"method":"org.example.te"#)
            let result = await slow.receive(timeout: 10)
            #expect(result.closed)
            #expect(
                result.messages == [
                    #"{"error":"io.curtain.varlink.ProtocolError","parameters":{"reason":"message incomplete after 200 ms"}}"#
                ]
            )
        }
    }

    @Test func connectionLimits() async throws {
        var configuration = VarlinkServer.Configuration()
        configuration.maximumConnections = 3
        configuration.maximumConnectionsPerUID = 2
        try await withServer(configuration) { path, server in
            // Per uid: the third connection from this uid is closed at once.
            let first = try RawSocket(path: path)
            let second = try RawSocket(path: path)
            first.send(#"{"method":"org.example.test.Echo","parameters":{"text":"1"}}"# + "\0")
            second.send(#"{"method":"org.example.test.Echo","parameters":{"text":"2"}}"# + "\0")
            #expect(await first.receive(messages: 1).messages.count == 1)
            #expect(await second.receive(messages: 1).messages.count == 1)
            let third = try RawSocket(path: path)
            third.send(#"{"method":"org.example.test.Echo","parameters":{"text":"3"}}"# + "\0")
            let refused = await third.receive()
            #expect(refused.closed && refused.messages.isEmpty)
            #expect(server.connectionCount == 2)
            // The admitted ones still work.
            first.send(#"{"method":"org.example.test.Echo","parameters":{"text":"again"}}"# + "\0")
            #expect(await first.receive(messages: 1).messages == [#"{"parameters":{"text":"again"}}"#])
        }
    }

    @Test func totalConnectionLimit() async throws {
        var configuration = VarlinkServer.Configuration()
        configuration.maximumConnections = 2
        try await withServer(configuration) { path, server in
            let first = try RawSocket(path: path)
            let second = try RawSocket(path: path)
            for (i, socket) in [first, second].enumerated() {
                socket.send(#"{"method":"org.example.test.Echo","parameters":{"text":"\#(i)"}}"# + "\0")
                #expect(await socket.receive(messages: 1).messages.count == 1)
            }
            let third = try RawSocket(path: path)
            let refused = await third.receive()
            #expect(refused.closed && refused.messages.isEmpty)
            #expect(server.connectionCount == 2)
        }
    }

    /// A client that does not read stalls only its own stream: the server stops producing once
    /// the connection's output buffer and the kernel's socket buffer are full, then carries on
    /// when the client reads.
    @Test func outputIsBoundedForAClientThatDoesNotRead() async throws {
        var configuration = VarlinkServer.Configuration()
        configuration.outputBufferLimit = 64 * 1024
        try await withServer(configuration) { path, _ in
            let total = 2_000  // 20 MiB if nothing held the server back
            let raw = try RawSocket(path: path)
            raw.send(#"{"method":"org.example.test.Flood","parameters":{"n":\#(total)},"more":true}"# + "\0")
            // There is no event for "nothing more happened": poll the count until it has started
            // and then stood still for a while, bounded. An unbounded server would pass 200 long
            // before; a loaded machine only makes the count stand still sooner.
            var sentWhileStalled = 0
            var still = 0
            let deadline = ContinuousClock.now + .seconds(20)
            while still < 5, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))  // ok-sleep: the poll interval, bounded by the deadline
                let sent = floodSent.load(ordering: .relaxed)
                still = sent > 0 && sent == sentWhileStalled ? still + 1 : 0
                sentWhileStalled = sent
            }
            #expect(sentWhileStalled > 0)
            // 64 KiB of NIO buffer plus the kernel's socket buffer (about 200 KiB) hold ~30 replies.
            #expect(sentWhileStalled < 200, "sent \(sentWhileStalled) replies to a client that read nothing")
            // Reading drains it all, in order, ending with the final reply.
            let received = await raw.receive(messages: total, timeout: 60)
            #expect(received.messages.count == total)
            #expect(received.messages.last?.hasPrefix(#"{"parameters":{"data":"xx"#) == true)
        }
    }

    /// A streaming call ends as soon as its peer hangs up, not when it next has a reply to
    /// send: an observer that closed its connection must not hold the daemon's resources.
    @Test(.timeLimit(.minutes(1))) func aStreamEndsWhenThePeerHangsUp() async throws {
        try await withServer { path, _ in
            let raw = try RawSocket(path: path)
            raw.send(#"{"method":"org.example.test.Hold","more":true}"# + "\0")
            let first = await raw.receive(messages: 1).messages
            #expect(first.count == 1 && first[0].contains(#""tick":1"#), "\(first)")
            shutdown(raw.fd, Int32(SHUT_RDWR))
            var ended = holdEnded.makeAsyncIterator()
            #expect(await ended.next() != nil)  // bounded by the time limit
        }
    }

    @Test func readGateBoundaries() {
        let gate = ReadGate()
        for i in 1..<ReadGate.high { #expect(!gate.received(), "message \(i)") }
        #expect(gate.received())  // the 32nd unconsumed message pauses reading
        #expect(!gate.received())  // already paused
        for _ in 0..<(ReadGate.high + 1 - ReadGate.low - 1) { #expect(!gate.consumed()) }
        #expect(gate.consumed())  // down to 8 unconsumed: reading resumes
    }

    @Test func malformedMessagesGetAnErrorAndAClose() async throws {
        try await withServer { path, _ in
            let raw = try RawSocket(path: path)
            raw.send("{not json}\0")
            let result = await raw.receive()
            #expect(result.closed)
            #expect(
                result.messages == [
                    #"{"error":"io.curtain.varlink.ProtocolError","parameters":{"reason":"not valid JSON"}}"#
                ]
            )
        }
    }
}

@Suite struct ShutdownTests {
    /// Stopping the server ends an open stream with a final reply and closes the connection.
    @Test func streamsGetAFinalReplyOnShutdown() async throws {
        let path = temporarySocketPath()
        let server = VarlinkServer(service: try makeTestService(), address: .path(path))
        let (listening, ready) = AsyncStream<Void>.makeStream()
        let task = Task { try await server.run { ready.finish() } }
        for await _ in listening {}
        let raw = try RawSocket(path: path)
        raw.send(#"{"method":"org.example.test.Watch","more":true}"# + "\0")
        let first = await raw.receive(messages: 1)
        #expect(first.messages == [#"{"continues":true,"parameters":{"tick":1}}"#])
        task.cancel()
        let rest = await raw.receive()
        #expect(rest.messages == [#"{"error":"io.curtain.varlink.ShuttingDown","parameters":{}}"#])
        #expect(rest.closed)
        _ = await task.result
        #expect(access(path, F_OK) != 0)
        // New connections are refused once it has stopped.
        #expect(throws: (any Error).self) { try RawSocket(path: path) }
    }
}

@Suite struct SocketFileTests {
    @Test func modeIsAppliedAndTheFileRemovedOnShutdown() async throws {
        var configuration = VarlinkServer.Configuration()
        configuration.socketMode = 0o600
        let path = try await withServer(configuration) { path, _ in
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            return path
        }
        #expect(access(path, F_OK) != 0)
    }

    /// sun_path holds 107 bytes and the NUL: a server on a 108-byte path is refused with the
    /// path, its length and the limit, and creates nothing; on a 107-byte one it listens.
    @Test func aSocketPathPastTheLimitIsRefusedPrecisely() async throws {
        let prefix = URL(fileURLWithPath: temporarySocketPath()).deletingLastPathComponent().path + "/"
        let longest = prefix + String(repeating: "s", count: UnixSocketAddress.maximumPathLength - prefix.utf8.count)
        let tooLong = longest + "s"
        do {
            try await VarlinkServer(service: try makeTestService(), address: .path(tooLong)).run()
            Issue.record("listened on a 108-byte path")
        } catch let error as VarlinkServer.ServerError {
            #expect(error.description == "\(tooLong): a Unix socket address has at most 107 bytes; this one has 108")
        }
        #expect(access(tooLong, F_OK) != 0)

        let server = VarlinkServer(service: try makeTestService(), address: .path(longest))
        let (listening, ready) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            defer { ready.finish() }  // a server that failed must not leave the test waiting
            try await server.run { ready.finish() }
        }
        for await _ in listening {}
        #expect(try RawSocket(path: longest).fd >= 0)
        task.cancel()
        _ = try await task.value
        #expect(access(longest, F_OK) != 0)
    }

    @Test func staleSocketIsReplacedButNotALiveOneOrAFile() async throws {
        let path = temporarySocketPath()
        // A stale socket: bound, never listened on by anyone alive.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = try UnixSocketAddress(path).bind(fd)
        close(fd)
        #expect(throws: Never.self) { try VarlinkServer.removeStaleSocket(at: path) }
        #expect(access(path, F_OK) != 0)

        _ = FileManager.default.createFile(atPath: path, contents: Data("precious".utf8))
        #expect(throws: VarlinkServer.ServerError.self) { try VarlinkServer.removeStaleSocket(at: path) }
        #expect(FileManager.default.contents(atPath: path) == Data("precious".utf8))

        _ = try await withServer { live, _ in
            #expect(throws: VarlinkServer.ServerError.self) { try VarlinkServer.removeStaleSocket(at: live) }
        }
    }
}

@Suite struct SocketActivationTests {
    @Test func parsesNamesAndIgnoresOtherProcesses() {
        let env = ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "metrics:varlink"]
        let found = SocketActivation.descriptors(environment: env, pid: 42)
        #expect(found == [.init(fd: 3, name: "metrics"), .init(fd: 4, name: "varlink")])
        #expect(SocketActivation.listeningDescriptor(named: "varlink", in: found) == 4)
        #expect(SocketActivation.descriptors(environment: env, pid: 43).isEmpty)
        #expect(SocketActivation.descriptors(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "x"], pid: 42).isEmpty)
        // One unnamed descriptor is taken whatever the name asked for.
        let single = SocketActivation.descriptors(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "1"], pid: 42)
        #expect(SocketActivation.listeningDescriptor(named: "varlink", in: single) == 3)
    }
}
