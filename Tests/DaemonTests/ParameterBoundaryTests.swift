import CurtainConfig
import CurtainDaemon
import CurtainTestKit
import Foundation
import Synchronization
import Testing
import Varlink

/// Every numeric parameter of io.curtain.Launcher and io.curtain.App is checked at the
/// boundary, in-process through `VarlinkService.handle` on the real bindings
/// (`DetachedBindings`): at the limit passes, one past fails with InvalidParameter naming it.
@Suite struct ParameterBoundaryTests {
    static let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
    static let nobody = PeerCredentials(pid: 1, uid: 65534, gid: 65534)

    static func service() throws -> VarlinkService {
        let path = TestEnvironment.repository.appendingPathComponent("config/curtain.toml").path
        let configuration = try Configuration(toml: try String(contentsOfFile: path, encoding: .utf8), file: path)
        return try DetachedBindings.service(configuration)
    }

    /// The replies of a call; a streaming call is cancelled once its first reply arrived
    /// (its last reply is then ShuttingDown), or it ends by itself with an error.
    static func call(
        _ service: VarlinkService,
        _ method: String,
        _ parameters: [String: JSONValue] = [:],
        more: Bool = false,
        peer: PeerCredentials = root
    ) async -> [VarlinkReply] {
        let collected = Mutex<[VarlinkReply]>([])
        let (first, signal) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            await service.handle(VarlinkCall(method: method, parameters: parameters, more: more), peer: peer) { reply in
                collected.withLock { $0.append(reply) }
                signal.yield()
            }
            signal.finish()
        }
        for await _ in first { break }
        task.cancel()
        await task.value
        return collected.withLock { $0 }
    }

    static func invalid(_ parameter: String) -> VarlinkReply {
        .error("org.varlink.service.InvalidParameter", ["parameter": .string(parameter)])
    }

    /// A launch in flight (so Watch answers with a snapshot, and ids exist).
    static func launch(_ service: VarlinkService) async throws -> Int64 {
        let reply = await call(service, "io.curtain.Launcher.Launch", ["route": ["normal": "shop"]])
        guard case .object(let launch)? = reply.first?.parameters["launch"], case .int(let id)? = launch["id"] else {
            throw VarlinkError("no launch", ["reply": .string("\(reply)")])
        }
        return id
    }

    @Test(.timeLimit(.minutes(1))) func watchFPSIsBounded() async throws {
        let service = try Self.service()
        _ = try await Self.launch(service)
        // The rates that crashed curtaind (Double → Int overflow), and every other one out of range.
        for fps: JSONValue in [
            1e-300, 1e-18, 0, -1, 0.0999, 1000.001, 1e300, .float(.nan), .float(.infinity), .float(-.infinity),
        ] {
            let replies = await Self.call(
                service,
                "io.curtain.Launcher.Watch",
                ["frames": true, "fps": fps],
                more: true
            )
            #expect(replies == [Self.invalid("fps")], "fps \(fps)")
        }
        // The limits and a rate between: a snapshot of the launch in flight, then the stream.
        for fps: JSONValue in [0.1, 1000, 60, 7] {
            let replies = await Self.call(
                service,
                "io.curtain.Launcher.Watch",
                ["frames": true, "fps": fps],
                more: true
            )
            #expect(replies.first?.parameters["event"]?["kind"] == "state", "fps \(fps): \(replies)")
        }
        // And it still answers.
        #expect(await Self.call(service, "io.curtain.Launcher.Ping") == [VarlinkReply()])
    }

    @Test(.timeLimit(.minutes(1))) func controlProgressIsBounded() async throws {
        let service = try Self.service()
        let id = try await Self.launch(service)
        for progress: JSONValue in [-0.0001, 1.0001, 1e300, -1e-9, .float(.nan), .float(.infinity)] {
            let replies = await Self.call(
                service,
                "io.curtain.Launcher.Control",
                ["id": .int(id), "action": "seek", "progress": progress]
            )
            #expect(replies == [Self.invalid("progress")], "progress \(progress)")
        }
        #expect(
            await Self.call(service, "io.curtain.Launcher.Control", ["id": .int(id), "action": "seek"]) == [
                Self.invalid("progress")
            ]
        )
        for progress: JSONValue in [0, 1, 0.5] {
            let replies = await Self.call(
                service,
                "io.curtain.Launcher.Control",
                ["id": .int(id), "action": "seek", "progress": progress]
            )
            #expect(replies.first?.error != "org.varlink.service.InvalidParameter", "progress \(progress): \(replies)")
        }
    }

    @Test(.timeLimit(.minutes(1))) func idsArePositive() async throws {
        let service = try Self.service()
        let id = try await Self.launch(service)
        for bad: JSONValue in [0, -1, .int(Int64.min)] {
            #expect(await Self.call(service, "io.curtain.Launcher.Get", ["id": bad]) == [Self.invalid("id")])
            #expect(
                await Self.call(service, "io.curtain.Launcher.Control", ["id": bad, "action": "pause"]) == [
                    Self.invalid("id")
                ]
            )
            #expect(
                await Self.call(service, "io.curtain.Launcher.Watch", ["launch": bad], more: true) == [
                    Self.invalid("launch")
                ]
            )
            #expect(await Self.call(service, "io.curtain.App.Ready", ["launch": bad]) == [Self.invalid("launch")])
            #expect(
                await Self.call(service, "io.curtain.App.Failed", ["launch": bad, "reason": "x"]) == [
                    Self.invalid("launch")
                ]
            )
            #expect(
                await Self.call(service, "io.curtain.Launcher.GetScene", ["launch": bad]) == [Self.invalid("launch")]
            )
        }
        // 1 and the largest id are valid ids (of no launch, or of this one).
        #expect(
            await Self.call(service, "io.curtain.Launcher.Get", ["id": .int(Int64.max)])
                == [.error("io.curtain.Launcher.NoSuchLaunch", ["id": .int(Int64.max)])]
        )
        #expect(await Self.call(service, "io.curtain.Launcher.Get", ["id": .int(id)]).first?.error == nil)
        #expect(
            await Self.call(service, "io.curtain.Launcher.GetScene", ["launch": .int(Int64.max)])
                == [.error("io.curtain.Launcher.NoSuchLaunch", ["id": .int(Int64.max)])]
        )
        #expect(await Self.call(service, "io.curtain.Launcher.GetScene", ["launch": .int(id)]).first?.error == nil)
    }

    @Test(.timeLimit(.minutes(1))) func elementFramesAreBounded() async throws {
        let service = try Self.service()
        let id = try await Self.launch(service)
        func ready(_ frame: [String: JSONValue]) async -> [VarlinkReply] {
            var full: [String: JSONValue] = ["x": 0, "y": 0, "width": 10, "height": 10]
            full.merge(frame) { $1 }
            return await Self.call(
                service,
                "io.curtain.App.Ready",
                ["launch": .int(id), "stage": "skeleton", "elements": ["logo": .object(full)]]
            )
        }
        for (key, value): (String, JSONValue) in [
            ("x", 100_000.5), ("x", -100_000.5), ("y", 1e300), ("width", -0.5), ("width", 100_001),
            ("height", 1e300), ("height", .float(.nan)), ("x", .float(.infinity)),
        ] {
            #expect(await ready([key: value]) == [Self.invalid("elements.logo.\(key)")], "\(key) \(value)")
        }
        for frame: [String: JSONValue] in [
            ["x": 100_000, "y": -100_000, "width": 100_000, "height": 0], ["x": 0.5, "width": 0],
        ] {
            #expect(await ready(frame) == [VarlinkReply()], "\(frame)")
        }
    }

    /// io.curtain.App answers in its own terms: an unauthorised app gets io.curtain.App.PermissionDenied.
    @Test(.timeLimit(.minutes(1))) func appMethodsDenyInTheirOwnInterface() async throws {
        let service = try Self.service()
        #expect(
            await Self.call(service, "io.curtain.App.Ready", ["launch": 1], peer: Self.nobody)
                == [.error("io.curtain.App.PermissionDenied", ["method": "Ready"])]
        )
        #expect(
            await Self.call(service, "io.curtain.App.Failed", ["launch": 1, "reason": "x"], peer: Self.nobody)
                == [.error("io.curtain.App.PermissionDenied", ["method": "Failed"])]
        )
        #expect(
            await Self.call(service, "io.curtain.App.Attach", ["app": "shop"], more: true, peer: Self.nobody)
                == [.error("io.curtain.App.PermissionDenied", ["method": "Attach"])]
        )
        #expect(
            await Self.call(service, "io.curtain.Launcher.Launch", ["route": ["normal": "shop"]], peer: Self.nobody)
                == [.error("io.curtain.Launcher.PermissionDenied", ["method": "Launch"])]
        )
    }
}
