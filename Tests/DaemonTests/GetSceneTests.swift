import CurtainConfig
import CurtainDaemon
import CurtainTestKit
import Foundation
import Testing
import Varlink

/// io.curtain.Launcher.GetScene on the real bindings, in-process (`DetachedBindings`): the
/// scene's path and the SHA-256 of its bytes, what varies per launch, and the file's limits.
@Suite struct GetSceneTests {
    typealias P = ParameterBoundaryTests

    static func service(scene: String?) throws -> VarlinkService {
        let path = TestEnvironment.repository.appendingPathComponent("config/curtain.toml").path
        var configuration = try Configuration(toml: try String(contentsOfFile: path, encoding: .utf8), file: path)
        configuration.transitions.scene = scene
        return try DetachedBindings.service(configuration)
    }

    static func scene(_ service: VarlinkService, _ id: Int64) async -> VarlinkReply? {
        await P.call(service, "io.curtain.Launcher.GetScene", ["launch": .int(id)]).first
    }

    @Test(.timeLimit(.minutes(1))) func theConfiguredSceneIsHashed() async throws {
        let directory = TestEnvironment.temporaryDirectory("get-scene")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("abc.scene.json").path
        try "abc".write(toFile: file, atomically: true, encoding: .utf8)
        let service = try Self.service(scene: file)
        let id = try await P.launch(service)
        let reply = await Self.scene(service, id)
        // FIPS 180-2's first example: SHA-256("abc").
        #expect(reply == VarlinkReply(parameters: ["scene": [
            "path": .string(file), "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "appear": "yula-appear", "reveal": "yula-mask-reveal", "text_variant": 0, "elements": [:], "hidden": [],
        ]]))
        // Changed on disk: the next answer has the new hash (renderers reload on a change).
        try "".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(await Self.scene(service, id)?.parameters["scene"]?["sha256"]
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test(.timeLimit(.minutes(1))) func reportedElementsAreInTheScene() async throws {
        let service = try Self.service(scene: nil)
        let id = try await P.launch(service)
        let ready = await P.call(service, "io.curtain.App.Ready", ["launch": .int(id), "stage": "skeleton",
                                                                   "elements": ["logo": ["x": 1, "y": 2.5, "width": 30, "height": 40]]])
        #expect(ready == [VarlinkReply()])
        let scene = await Self.scene(service, id)?.parameters["scene"]
        #expect(scene?["elements"] == ["logo": [1.0, 2.5, 30.0, 40.0]])
        // Not configured: the reveal's shipped scene, found here in the source tree's scenes/.
        guard case .string(let path)? = scene?["path"] else { Issue.record("no path: \(String(describing: scene))"); return }
        #expect(path == TestEnvironment.repository.appendingPathComponent("scenes/yula/yula.scene.json").path)
    }

    /// A scene file is at most Scene.Limits.documentSize (256 KiB) bytes: at the limit it is
    /// hashed, one byte more is SceneUnavailable, and so is a missing file or a directory.
    @Test(.timeLimit(.minutes(1))) func anUnreadableSceneIsSceneUnavailable() async throws {
        let directory = TestEnvironment.temporaryDirectory("get-scene-limits")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.scene.json").path
        let service = try Self.service(scene: file)
        let id = try await P.launch(service)
        #expect(await Self.scene(service, id) == .error("io.curtain.Launcher.SceneUnavailable",
                                                        ["path": .string(file), "reason": "No such file or directory"]))
        try Data(repeating: 0x20, count: 256 * 1024).write(to: URL(fileURLWithPath: file))
        #expect(await Self.scene(service, id)?.error == nil)
        try Data(repeating: 0x20, count: 256 * 1024 + 1).write(to: URL(fileURLWithPath: file))
        #expect(await Self.scene(service, id) == .error("io.curtain.Launcher.SceneUnavailable",
                                                        ["path": .string(file), "reason": "larger than 262144 bytes (the scene document limit)"]))
        let other = try Self.service(scene: directory.path)
        let otherID = try await P.launch(other)
        #expect(await Self.scene(other, otherID) == .error("io.curtain.Launcher.SceneUnavailable",
                                                           ["path": .string(directory.path), "reason": "not a regular file"]))
    }
}
