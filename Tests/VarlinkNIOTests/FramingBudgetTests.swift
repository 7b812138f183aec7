import Foundation
import NIOCore
import NIOEmbedded
import Testing
import Varlink

@testable import VarlinkNIO

/// The framing handler examines each byte once, and unterminated messages are bounded across
/// all connections by a server-wide budget that is given back when connections close.
@Suite struct FramingBudgetTests {
    /// A 15 MiB message in 4 KiB reads: the bytes examined for the NUL stay linear in its size
    /// (a rescan from the message's start on every read examined ~n²/8192 ≈ 2.9e10 bytes).
    @Test func theScanForTheTerminatorIsLinear() throws {
        let size = 15 * 1024 * 1024
        let handler = VarlinkFramingHandler(maximumMessageSize: 16 * 1024 * 1024, messageTimeout: nil)
        let channel = EmbeddedChannel(handler: handler)
        defer { _ = try? channel.finish() }
        let skeleton = #"{"method":"org.example.test.Echo","parameters":{"text":""}}"#
        let message =
            Array(
                (#"{"method":"org.example.test.Echo","parameters":{"text":""#
                    + String(repeating: "x", count: size - skeleton.utf8.count) + #""}}"#).utf8
            ) + [0]
        var offset = 0
        while offset < message.count {
            let end = min(offset + 4096, message.count)
            try channel.writeInbound(ByteBuffer(bytes: message[offset..<end]))
            offset = end
        }
        let out = try channel.readInbound(as: ByteBuffer.self)
        #expect(out?.readableBytes == size)
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(
            handler.examinedBytes <= message.count,
            "examined \(handler.examinedBytes) bytes for a \(message.count)-byte message"
        )
    }

    /// Pipelined messages split across reads are still framed exactly, NULs at read edges too.
    @Test func messagesSplitAnywhereAreFramedExactly() throws {
        let stream = Array("a\0bc\0\0def\0g".utf8)
        for chunk in 1...stream.count {
            let handler = VarlinkFramingHandler(maximumMessageSize: 100, messageTimeout: nil)
            let channel = EmbeddedChannel(handler: handler)
            var offset = 0
            while offset < stream.count {
                let end = min(offset + chunk, stream.count)
                try channel.writeInbound(ByteBuffer(bytes: stream[offset..<end]))
                offset = end
            }
            var messages: [String] = []
            while let m = try channel.readInbound(as: ByteBuffer.self) { messages.append(String(buffer: m)) }
            #expect(messages == ["a", "bc", "", "def"], "reads of \(chunk)")
            #expect(handler.examinedBytes <= stream.count)
            _ = try? channel.finish()
        }
    }

    /// What a connection holds is charged while its message is partial, given back when the
    /// message completes, and given back when the connection closes mid-message.
    @Test func theBudgetIsChargedAndGivenBack() throws {
        let budget = MessageBudget(limit: 100)
        let first = EmbeddedChannel(
            handler: VarlinkFramingHandler(maximumMessageSize: 1000, messageTimeout: nil, budget: budget)
        )
        let second = EmbeddedChannel(
            handler: VarlinkFramingHandler(maximumMessageSize: 1000, messageTimeout: nil, budget: budget)
        )
        try first.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 0x61, count: 60)))
        #expect(budget.held == 60)
        try second.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 0x61, count: 40)))
        #expect(budget.held == 100)  // at the limit: accepted
        try first.writeInbound(ByteBuffer(bytes: [0]))
        #expect(budget.held == 40)  // completed: given back
        #expect(try first.readInbound(as: ByteBuffer.self)?.readableBytes == 60)
        // One byte past the limit: refused, and what the connection held is given back.
        try first.writeInbound(ByteBuffer(bytes: [UInt8](repeating: 0x61, count: 60)))
        #expect(budget.held == 100)
        #expect(throws: VarlinkFramingHandler.FramingError.budgetExceeded(limit: 100)) {
            try second.writeInbound(ByteBuffer(bytes: [0x61]))
        }
        #expect(budget.held == 60)
        // Closed mid-message: given back.
        _ = try? first.close().wait()
        #expect(budget.held == 0)
        _ = try? first.finish()
        _ = try? second.finish()
    }

    /// Several clients with big unterminated messages: the one that would take the server past
    /// its budget is told why and closed; the others, and a healthy client, are still served;
    /// when they close the budget is back to 0.
    @Test(.timeLimit(.minutes(1))) func theOneOverTheServerBudgetIsClosed() async throws {
        var configuration = VarlinkServer.Configuration()
        configuration.maximumMessageSize = 1024 * 1024
        configuration.maximumBufferedMessageBytes = 300_000
        try await withServer(configuration) { path, server in
            func echo(size: Int) -> String {
                let skeleton = #"{"method":"org.example.test.Echo","parameters":{"text":""}}"#
                return #"{"method":"org.example.test.Echo","parameters":{"text":""#
                    + String(repeating: "x", count: size - skeleton.utf8.count) + #""}}"#
            }
            // 100 000 + 200 000 bytes, unterminated: exactly the budget.
            var a: RawSocket? = try RawSocket(path: path)
            var b: RawSocket? = try RawSocket(path: path)
            a!.send(echo(size: 100_000))
            b!.send(String(echo(size: 250_000).prefix(200_000)))
            #expect(await waitUntil { server.bufferedMessageBytes == 300_000 }, "held \(server.bufferedMessageBytes)")

            // One byte more, from a third client: refused with the reason, and closed.
            let c = try RawSocket(path: path)
            c.send("{")
            let refused = await c.receive()
            #expect(refused.closed)
            #expect(
                refused.messages == [
                    #"{"error":"io.curtain.varlink.ProtocolError","parameters":{"reason":"unterminated messages of all connections would exceed 300000 bytes"}}"#
                ]
            )
            #expect(server.bufferedMessageBytes == 300_000)

            // A healthy client is served (a whole message in one read holds nothing).
            let healthy = try RawSocket(path: path)
            healthy.send(#"{"method":"org.example.test.Echo","parameters":{"text":"hi"}}"# + "\0")
            #expect(await healthy.receive(messages: 1).messages == [#"{"parameters":{"text":"hi"}}"#])
            // So is the first big one, once it completes its message.
            a!.send("\0")
            #expect(await a!.receive(messages: 1).messages.first?.hasPrefix(#"{"parameters":{"text":"xxx"#) == true)
            #expect(await waitUntil { server.bufferedMessageBytes == 200_000 }, "held \(server.bufferedMessageBytes)")
            // The second hangs up mid-message: what it held is given back.
            b = nil
            a = nil
            #expect(await waitUntil { server.bufferedMessageBytes == 0 }, "held \(server.bufferedMessageBytes)")
            #expect(await waitUntil { server.connectionCount == 1 })  // the healthy one
        }
    }
}

/// Waits (bounded, 10 s) until `condition` holds, checking every millisecond: for counters
/// the server changes on its event loops, where there is no event to wait on.
func waitUntil(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))  // ok-sleep: the poll interval of a bounded wait
    }
    return true
}
