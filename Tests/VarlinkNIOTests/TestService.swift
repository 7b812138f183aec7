import Synchronization
import Varlink

/// The same test interface as VarlinkTests' (tests cannot share files across targets).
let testInterface = """
    interface org.example.test

    method Echo(text: string) -> (text: string)
    method Count(n: int) -> (i: int)
    method Peer() -> (pid: int, uid: int)
    method Watch() -> (tick: int)
    method Flood(n: int) -> (data: string)
    method Hold() -> (tick: int)
    """

struct Text: Codable, Sendable { var text: String }
struct CountIn: Codable, Sendable { var n: Int }
struct CountOut: Codable, Sendable { var i: Int }
struct PeerOut: Codable, Sendable {
    var pid: Int
    var uid: Int
}
struct TickOut: Codable, Sendable { var tick: Int }
struct FloodOut: Codable, Sendable { var data: String }

/// Ends of Hold calls (only one test holds): each yields when its handler has returned.
let (holdEnded, holdEndedContinuation) = AsyncStream<Void>.makeStream()

/// Replies the Flood method has handed to the transport (only one test floods).
let floodSent = Atomic<Int>(0)

func makeTestService() throws -> VarlinkService {
    var test = InterfaceBuilder(testInterface)
    test.method("Echo") { (input: Text, _) in input }
    test.streamingMethod("Count") { (input: CountIn, _, replies: ReplyStream<CountOut>) in
        for i in 1...max(input.n, 1) {
            try await replies.send(CountOut(i: i), continues: replies.more && i < input.n)
            if !replies.more { return }
        }
    }
    // One reply, then nothing until the call is interrupted (by shutdown).
    test.streamingMethod("Watch", requiresMore: true) { (_: Empty, _, replies: ReplyStream<TickOut>) in
        try await replies.send(TickOut(tick: 1), continues: true)
        try await Task.sleep(for: .seconds(3600))  // ok-sleep: not synchronisation; ends by cancellation at shutdown
    }
    // n replies of 10 KiB each, as fast as the transport takes them; counts what it sent.
    test.streamingMethod("Flood", requiresMore: true) { (input: CountIn, _, replies: ReplyStream<FloodOut>) in
        let data = String(repeating: "x", count: 10 * 1024)
        for i in 1...input.n {
            try await replies.send(FloodOut(data: data), continues: i < input.n)
            floodSent.add(1, ordering: .relaxed)
        }
    }
    // Like Watch, and reports when its handler ends (cancelled when the peer hangs up).
    test.streamingMethod("Hold", requiresMore: true) { (_: Empty, _, replies: ReplyStream<TickOut>) in
        defer { holdEndedContinuation.yield() }
        try await replies.send(TickOut(tick: 1), continues: true)
        try await Task.sleep(for: .seconds(3600))  // ok-sleep: not synchronisation; ends by cancellation
    }
    test.method("Peer") { (_: Empty, request) in
        PeerOut(pid: Int(request.peer?.pid ?? -1), uid: Int(request.peer?.uid ?? 0))
    }
    return try VarlinkService(
        info: .init(vendor: "Curtain", product: "test", version: "1", url: "https://example.org"),
        interfaces: [test]
    )
}
