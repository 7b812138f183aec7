import Foundation
import NIOCore
import Synchronization
import Testing
import Varlink

@testable import VarlinkNIO

/// A handler that cuts off a peer which stopped reading (`Request.disconnect`, as curtaind does
/// with ObserverTooSlow): the error follows the replies already queued, so a peer that reads
/// again learns why it was cut off; one that never reads is closed after the linger time.
@Suite struct DisconnectTests {
    static let interface = """
        interface org.example.stall

        # Replies until the peer's output is full, then disconnects it with TooSlow.
        method Stall() -> (data: string)
        error TooSlow (replies: int)
        """

    /// The service, and a stream that yields how many replies were written before the cut.
    static func service() throws -> (VarlinkService, AsyncStream<Int>) {
        let (cut, signal) = AsyncStream.makeStream(of: Int.self)
        var builder = InterfaceBuilder(interface)
        builder.rawMethod("Stall", options: .init(requiresMore: true)) { request, reply in
            guard let output = await request.direct?.takeOver() else {
                throw VarlinkError("org.example.stall.NoDirect")
            }
            let message = try reply.prepare(["data": .string(String(repeating: "x", count: 8192))]).message(
                continues: true
            )
            // Straight to the socket: write until a message waits for the peer (the socket is
            // full) — the state a stalled observer is cut off in.
            var written = 0
            while output.waiting() == nil, output.write(message, false) { written += 1 }
            await request.disconnect(VarlinkError("org.example.stall.TooSlow", ["replies": .int(Int64(written))]))
            signal.yield(written)
            signal.finish()
        }
        let service = try VarlinkService(
            info: .init(vendor: "Curtain", product: "test", version: "1", url: "https://example.org"),
            interfaces: [builder]
        )
        return (service, cut)
    }

    @Test(.timeLimit(.minutes(1))) func theErrorFollowsTheQueuedRepliesWhenThePeerReadsAgain() async throws {
        let (service, cut) = try Self.service()
        // The peer reads again well within the linger (5 s by default): a starved test thread on
        // a loaded machine must not turn this into the next test's case (closed without the error).
        var configuration = VarlinkServer.Configuration()
        configuration.disconnectLinger = .seconds(40)
        try await withServer(configuration, service: service) { path, server in
            let raw = try RawSocket(path: path)
            raw.send(#"{"method":"org.example.stall.Stall","more":true}"# + "\0")
            var written = -1
            for await count in cut { written = count }  // cut off while the peer read nothing
            #expect(written > 0)
            let received = await raw.receive(timeout: 10)
            #expect(received.closed)
            #expect(received.messages.count == written + 1)
            #expect(
                received.messages.last == #"{"error":"org.example.stall.TooSlow","parameters":{"replies":\#(written)}}"#
            )
            #expect(await waitUntil { server.connectionCount == 0 })
        }
    }

    /// One that never reads again is closed after disconnectLinger, without the error (it
    /// could not be written), and its connection is released.
    @Test(.timeLimit(.minutes(1))) func aPeerThatNeverReadsIsClosedAfterTheLinger() async throws {
        let (service, cut) = try Self.service()
        var configuration = VarlinkServer.Configuration()
        configuration.disconnectLinger = .milliseconds(100)
        try await withServer(configuration, service: service) { path, server in
            let raw = try RawSocket(path: path)
            raw.send(#"{"method":"org.example.stall.Stall","more":true}"# + "\0")
            for await _ in cut {}
            #expect(await waitUntil { server.connectionCount == 0 })
            let received = await raw.receive(timeout: 10)
            #expect(received.closed)
            #expect(received.messages.last?.contains("TooSlow") != true)
        }
    }
}
