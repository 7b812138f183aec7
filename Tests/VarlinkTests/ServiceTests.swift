import Synchronization
import Testing

@testable import Varlink

/// The protocol rules, exercised on the transport-independent core (no sockets).
let testInterface = """
    # A test interface.
    interface org.example.test

    type Point (x: int, y: int)

    method Echo(text: string, point: ?Point) -> (text: string, point: ?Point)
    method Count(n: int) -> (i: int)
    method Subscribe() -> (tick: int)
    method Fail(why: string) -> ()
    method Broken() -> (n: int)
    method Unimplemented() -> ()
    method Peer() -> (pid: int, uid: int)

    error Oops (why: string)
    """

struct EchoIO: Codable, Sendable {
    var text: String
    var point: Point?
}
struct Point: Codable, Sendable, Hashable {
    var x: Int
    var y: Int
}
struct CountIn: Codable, Sendable { var n: Int }
struct CountOut: Codable, Sendable { var i: Int }
struct Tick: Codable, Sendable { var tick: Int }
struct Why: Codable, Sendable { var why: String }
struct PeerOut: Codable, Sendable {
    var pid: Int
    var uid: Int
}

func makeTestService() throws -> VarlinkService {
    var test = InterfaceBuilder(testInterface)
    test.method("Echo") { (input: EchoIO, _) in input }
    test.streamingMethod("Count") { (input: CountIn, _, replies: ReplyStream<CountOut>) in
        guard replies.more else { return try await replies.send(CountOut(i: input.n), continues: false) }
        for i in 1...max(input.n, 1) { try await replies.send(CountOut(i: i), continues: i < input.n) }
    }
    test.streamingMethod("Subscribe", requiresMore: true) { (_: Empty, _, replies: ReplyStream<Tick>) in
        try await replies.send(Tick(tick: 1), continues: true)
        try await replies.send(Tick(tick: 2), continues: false)
    }
    test.method("Fail") { (input: Why, _) -> Empty in
        throw VarlinkError("org.example.test.Oops", ["why": .string(input.why)])
    }
    test.rawMethod("Broken") { _, reply in try await reply(["n": .string("not an int")], false) }
    test.method("Peer") { (_: Empty, request) in
        PeerOut(pid: Int(request.peer?.pid ?? -1), uid: Int(request.peer?.uid ?? 0))
    }
    return try VarlinkService(
        info: .init(vendor: "Curtain", product: "test", version: "1", url: "https://example.org"),
        interfaces: [test]
    )
}

/// Collects the replies of one call.
func replies(_ service: VarlinkService, _ call: VarlinkCall) async -> [VarlinkReply] {
    let collected = Mutex<[VarlinkReply]>([])
    await service.handle(call, peer: nil) { reply in collected.withLock { $0.append(reply) } }
    return collected.withLock { $0 }
}

@Suite struct ServiceTests {
    let service = try! makeTestService()

    @Test func getInfoListsEveryInterface() async {
        let r = await replies(service, VarlinkCall(method: "org.varlink.service.GetInfo"))
        #expect(
            r == [
                VarlinkReply(parameters: [
                    "vendor": "Curtain", "product": "test", "version": "1", "url": "https://example.org",
                    "interfaces": ["org.example.test", "org.varlink.service"],
                ])
            ]
        )
    }

    @Test func getInterfaceDescriptionReturnsTheText() async {
        let r = await replies(
            service,
            VarlinkCall(
                method: "org.varlink.service.GetInterfaceDescription",
                parameters: ["interface": "org.example.test"]
            )
        )
        #expect(r == [VarlinkReply(parameters: ["description": .string(testInterface)])])
        let missing = await replies(
            service,
            VarlinkCall(method: "org.varlink.service.GetInterfaceDescription", parameters: ["interface": "org.nope"])
        )
        #expect(missing == [.error("org.varlink.service.InterfaceNotFound", ["interface": "org.nope"])])
    }

    @Test func lookupErrors() async {
        #expect(
            await replies(service, VarlinkCall(method: "org.nope.Foo")) == [
                .error("org.varlink.service.InterfaceNotFound", ["interface": "org.nope"])
            ]
        )
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Nope")) == [
                .error("org.varlink.service.MethodNotFound", ["method": "org.example.test.Nope"])
            ]
        )
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Unimplemented"))
                == [.error("org.varlink.service.MethodNotImplemented", ["method": "org.example.test.Unimplemented"])]
        )
    }

    @Test func typedRoundTrip() async {
        let r = await replies(
            service,
            VarlinkCall(method: "org.example.test.Echo", parameters: ["text": "hi", "point": ["x": 1, "y": 2]])
        )
        #expect(r == [VarlinkReply(parameters: ["text": "hi", "point": ["x": 1, "y": 2]])])
    }

    @Test func invalidParametersNameTheParameter() async {
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Echo", parameters: ["text": 5]))
                == [.error("org.varlink.service.InvalidParameter", ["parameter": "text"])]
        )
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Echo"))
                == [.error("org.varlink.service.InvalidParameter", ["parameter": "text"])]
        )
        #expect(
            await replies(
                service,
                VarlinkCall(method: "org.example.test.Echo", parameters: ["text": "a", "point": ["x": 1]])
            )
                == [.error("org.varlink.service.InvalidParameter", ["parameter": "point"])]
        )
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Echo", parameters: ["text": "a", "extra": 1]))
                == [.error("org.varlink.service.InvalidParameter", ["parameter": "extra"])]
        )
    }

    @Test func streamingWithMore() async {
        let r = await replies(service, VarlinkCall(method: "org.example.test.Count", parameters: ["n": 3], more: true))
        #expect(
            r == [
                VarlinkReply(parameters: ["i": 1], continues: true),
                VarlinkReply(parameters: ["i": 2], continues: true),
                VarlinkReply(parameters: ["i": 3]),
            ]
        )
        // Without more, the same method answers once.
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Count", parameters: ["n": 3])) == [
                VarlinkReply(parameters: ["i": 3])
            ]
        )
    }

    @Test func subscriptionsRequireMore() async {
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Subscribe")) == [
                .error("org.varlink.service.ExpectedMore")
            ]
        )
        #expect(await replies(service, VarlinkCall(method: "org.example.test.Subscribe", more: true)).count == 2)
    }

    @Test func onewayGetsNoReply() async {
        #expect(
            await replies(
                service,
                VarlinkCall(method: "org.example.test.Echo", parameters: ["text": "x"], oneway: true)
            ).isEmpty
        )
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Fail", parameters: ["why": "x"], oneway: true))
                .isEmpty
        )
    }

    @Test func upgradeIsRefusedUnlessSupported() async {
        #expect(
            await replies(
                service,
                VarlinkCall(method: "org.example.test.Echo", parameters: ["text": "x"], upgrade: true)
            )
                == [.error("org.varlink.service.InvalidParameter", ["parameter": "upgrade"])]
        )
    }

    @Test func handlerErrorsAndBrokenReplies() async {
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Fail", parameters: ["why": "because"]))
                == [.error("org.example.test.Oops", ["why": "because"])]
        )
        // A reply that does not match the interface never leaves the service.
        #expect(
            await replies(service, VarlinkCall(method: "org.example.test.Broken")) == [
                .error(VarlinkError.internalErrorName)
            ]
        )
    }
}

extension ServiceTests {
    /// A reply prepared outside any call (a frame made ahead of its deadline) is checked
    /// against the method's output as a handler's reply is, and encoded the same.
    @Test func repliesPreparedOutsideACall() throws {
        let service = try makeTestService()
        let preparer = try #require(service.replyPreparer(for: "org.example.test.Echo"))
        #expect(preparer.method == "org.example.test.Echo")
        let prepared = try preparer.prepare(["text": "hi", "point": .object(["x": 1, "y": 2])])
        #expect(prepared.method == "org.example.test.Echo")
        let message = prepared.message(continues: true)
        #expect(message.last == 0)
        #expect(
            try JSONParser.parse(message.dropLast())
                == .object([
                    "continues": true, "parameters": .object(["point": .object(["x": 1, "y": 2]), "text": "hi"]),
                ])
        )
        #expect(throws: (any Error).self) { try preparer.prepare(["text": 1]) }
        #expect(throws: (any Error).self) { try preparer.prepare(["point": .object(["x": 1, "y": 2])]) }
        for unknown in ["org.example.test.Nope", "org.example.nope.Echo", "Echo", "", "org.example.test."] {
            #expect(service.replyPreparer(for: unknown) == nil, "\(unknown)")
        }
    }
}

@Suite struct MessageTests {
    func call(_ text: String) throws(VarlinkProtocolError) -> VarlinkCall {
        try VarlinkCall(decoding: Array(text.utf8))
    }
    func error(_ text: String) -> String? {
        do {
            _ = try call(text)
            return nil
        } catch { return error.message }
    }

    @Test func parametersMayBeAbsentOrEmpty() throws {
        #expect(try call(#"{"method":"a.b.C"}"#) == VarlinkCall(method: "a.b.C"))
        #expect(try call(#"{"method":"a.b.C","parameters":{}}"#) == VarlinkCall(method: "a.b.C"))
    }

    @Test func flagsAndNamespacedExtensions() throws {
        #expect(
            try call(#"{"method":"a.b.C","more":true,"org.example.trace":"x"}"#)
                == VarlinkCall(method: "a.b.C", more: true)
        )
        #expect(
            error(#"{"method":"a.b.C","trace":"x"}"#)
                == "unknown key \"trace\" in a call (extensions must be namespaced)"
        )
        #expect(error(#"{"method":"a.b.C","more":1}"#) == "\"more\" must be true or false")
        #expect(error(#"{"method":"a.b.C","more":true,"oneway":true}"#) == "\"oneway\" and \"more\" exclude each other")
        #expect(
            error(#"{"method":"C"}"#)
                == "\"method\" must be qualified by its interface, e.g. org.varlink.service.GetInfo"
        )
        #expect(error(#"{"parameters":{}}"#) == "a call needs a \"method\"")
        #expect(error(#"[1]"#) == "a message must be a JSON object")
        #expect(error(#"{"method":"a.b.C""#) == "not valid JSON")
        #expect(error(#"{"method":"a.b.C","parameters":[]}"#) == "\"parameters\" must be an object")
    }

    @Test func encodingRoundTrips() throws {
        let original = VarlinkCall(
            method: "org.example.test.Echo",
            parameters: ["text": "a\"b\\c\n\u{1}é", "n": 1.5, "i": -3, "l": [true, nil]],
            more: true
        )
        var bytes = original.encoded()
        #expect(bytes.last == 0)
        bytes.removeLast()
        #expect(try VarlinkCall(decoding: bytes) == original)

        let reply = VarlinkReply(parameters: ["x": ["y": 2]], continues: true)
        var replyBytes = reply.encoded()
        replyBytes.removeLast()
        #expect(try VarlinkReply(decoding: replyBytes) == reply)
        #expect(
            String(decoding: VarlinkReply.error("a.b.E").encoded().dropLast(), as: UTF8.self)
                == #"{"error":"a.b.E","parameters":{}}"#
        )
    }
}
