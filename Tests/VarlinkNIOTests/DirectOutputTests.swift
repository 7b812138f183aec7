import Foundation
import Testing
import Varlink

@testable import VarlinkNIO

/// A streaming call that takes its connection's socket (`DirectWriter.takeOver`): the replies
/// it sent before, those it writes to the socket, those it still sends through `Reply`, and
/// the next call's reply reach the peer in that order; a stalled peer keeps one replaceable
/// message between two others.
@Suite struct DirectOutputTests {
    static let interface = """
        interface org.example.direct

        # Replies n = 0, 1, 2, … some through Reply, some straight to the socket.
        method Mixed() -> (n: int)
        # Fills the socket, then writes events and frames (replaceable) while the peer does not read.
        method Stalled() -> (n: int, frame: bool)
        # Writes its final reply to the socket itself (Reply.final) and returns without another.
        method Finished() -> (n: int)
        method Ping() -> ()
        """

    /// `stalled` is told how many replies filled the socket once the rest is written.
    static func service(stalled: AsyncStream<Int>.Continuation? = nil) throws -> VarlinkService {
        var builder = InterfaceBuilder(interface)
        builder.rawMethod("Ping") { _, reply in try await reply([:], false) }
        builder.rawMethod("Mixed", options: .init(requiresMore: true)) { request, reply in
            try await reply(["n": 0], true)
            guard let output = await request.direct?.takeOver() else {
                throw VarlinkError("org.example.direct.NoDirect")
            }
            #expect(output.write(try reply.prepare(["n": 1]).message(continues: true), false))
            try await reply(["n": 2], true)
            #expect(output.write(try reply.prepare(["n": 3]).message(continues: true), true))
            try await reply(["n": 4], false)
        }
        builder.rawMethod("Finished", options: .init(requiresMore: true)) { request, reply in
            guard let output = await request.direct?.takeOver() else {
                throw VarlinkError("org.example.direct.NoDirect")
            }
            #expect(output.write(try reply.prepare(["n": 0]).message(continues: true), false))
            let last = try reply.prepare(["n": 1])
            guard let message = reply.final(last) else { throw VarlinkError("org.example.direct.NotFinal") }
            #expect(output.write(message, false))
            // Finished now: no second final reply, and nothing sent through Reply.
            #expect(reply.final(last) == nil)
            await #expect(throws: (any Error).self) { try await reply(["n": 2], true) }
        }
        builder.rawMethod("Stalled", options: .init(requiresMore: true)) { request, reply in
            guard let output = await request.direct?.takeOver() else {
                throw VarlinkError("org.example.direct.NoDirect")
            }
            func message(_ n: Int, frame: Bool) throws -> [UInt8] {
                try reply.prepare(["n": .int(Int64(n)), "frame": .bool(frame)]).message(continues: true)
            }
            var n = 0
            while output.waiting() == nil {
                n += 1
                _ = output.write(try message(n, frame: false), false)
            }  // the socket is full
            let filled = n
            for kind in [true, true, false, true, true, true, false, true] {
                n += 1
                _ = output.write(try message(n, frame: kind), kind)
            }
            stalled?.yield(filled)
            try await reply(["n": .int(Int64(filled)), "frame": false], false)
        }
        return try VarlinkService(
            info: .init(vendor: "Curtain", product: "test", version: "1", url: "https://example.org"),
            interfaces: [builder]
        )
    }

    /// The connection keeps the socket its first streaming call took: a second such call gets
    /// it again, and a plain call's reply goes out behind theirs.
    @Test(.timeLimit(.minutes(1))) func repliesKeepTheirOrderAcrossTheTakeOverAndTheCallsAfterIt() async throws {
        try await withServer(service: try Self.service()) { path, server in
            let raw = try RawSocket(path: path)
            // Pipelined: each call's replies after every reply of the one before.
            let mixed = #"{"method":"org.example.direct.Mixed","more":true}"# + "\0"
            raw.send(mixed + mixed + #"{"method":"org.example.direct.Ping"}"# + "\0")
            let received = await raw.receive(messages: 11)
            let one = (0...3).map { #"{"continues":true,"parameters":{"n":\#($0)}}"# } + [#"{"parameters":{"n":4}}"#]
            #expect(received.messages == one + one + [#"{"parameters":{}}"#])
        }
    }

    /// A final reply written by the handler to the socket (`Reply.final`) ends the call: the
    /// handler returns without another (no InternalError), and the next call is answered after it.
    @Test(.timeLimit(.minutes(1))) func aFinalReplyWrittenToTheSocketEndsTheCall() async throws {
        try await withServer(service: try Self.service()) { path, _ in
            let raw = try RawSocket(path: path)
            raw.send(
                #"{"method":"org.example.direct.Finished","more":true}"# + "\0"
                    + #"{"method":"org.example.direct.Ping"}"# + "\0"
            )
            let received = await raw.receive(messages: 3)
            #expect(
                received.messages == [
                    #"{"continues":true,"parameters":{"n":0}}"#, #"{"parameters":{"n":1}}"#, #"{"parameters":{}}"#,
                ]
            )
        }
    }

    /// Frames 1 and 2 wait behind the filling replies: 2 replaces 1; 4, 5 and 6: only 6; 8 stays.
    @Test(.timeLimit(.minutes(1))) func aStalledPeerKeepsTheNewestReplaceableMessageOnly() async throws {
        let (stalled, signal) = AsyncStream.makeStream(of: Int.self)
        try await withServer(service: try Self.service(stalled: signal)) { path, _ in
            let raw = try RawSocket(path: path)
            raw.send(#"{"method":"org.example.direct.Stalled","more":true}"# + "\0")
            var filled = 0
            for await count in stalled {
                filled = count
                break
            }
            let received = await raw.receive(messages: filled + 6)
            let parameters = received.messages.map { message in
                ((try? JSONSerialization.jsonObject(with: Data(message.utf8)) as? [String: Any])?["parameters"]
                    as? [String: Any]) ?? [:]
            }
            #expect(parameters.last?["n"] as? Int == filled, "the final reply last: \(received.messages.suffix(3))")
            let after = parameters.dropLast().compactMap { $0["n"] as? Int }.filter { $0 > filled }
            #expect(after.map { $0 - filled } == [2, 3, 6, 7, 8])
            #expect(parameters.dropLast().compactMap { $0["n"] as? Int }.filter { $0 <= filled } == Array(1...filled))
        }
    }
}
