import CurtainConfig
import CurtainCore
import CurtainTestKit
import Foundation
import Testing
import Varlink

@testable import CurtainDaemon

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
        #expect(
            reply
                == VarlinkReply(parameters: [
                    "scene": [
                        "path": .string(file),
                        "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                        "appear": "yula-appear", "reveal": "yula-mask-reveal", "text_variant": 0, "elements": [:],
                        "hidden": [],
                    ]
                ])
        )
        // Changed on disk: the next answer has the new hash (renderers reload on a change).
        try "".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(
            await Self.scene(service, id)?.parameters["scene"]?["sha256"]
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
    }

    /// SceneDigest's own SHA-256 (no libcrypto in curtaind) against Python's hashlib, at every
    /// length around the padding's block boundaries (55, 56, 64 bytes …) and a scene-sized input.
    @Test(.timeLimit(.minutes(1))) func sha256MatchesHashlib() async throws {
        let lengths = Array(0...130) + [1000, 4095, 4096, 65_537, 256 * 1024]
        let inputs = lengths.map { length in (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ length) } }
        let script =
            "import hashlib,sys\nfor n in map(int, sys.argv[1:]):\n    print(hashlib.sha256(bytes((i*131+n) % 256 for i in range(n))).hexdigest())"
        let (status, stdout, stderr) = try await TestProcess.run(
            "/usr/bin/python3",
            ["-c", script] + lengths.map(String.init),
            within: 30
        )
        #expect(status == 0, "\(stderr)")
        let expected = stdout.split(separator: "\n").map(String.init)
        #expect(expected.count == lengths.count)
        for (index, (input, digest)) in zip(inputs, expected).enumerated() {
            #expect(SceneDigest.hex(SceneDigest.sha256(input)) == digest, "length \(lengths[index])")
        }
    }

    @Test(.timeLimit(.minutes(1))) func reportedElementsAreInTheScene() async throws {
        let service = try Self.service(scene: nil)
        let id = try await P.launch(service)
        let ready = await P.call(
            service,
            "io.curtain.App.Ready",
            [
                "launch": .int(id), "stage": "skeleton",
                "elements": ["logo": ["x": 1, "y": 2.5, "width": 30, "height": 40]],
            ]
        )
        #expect(ready == [VarlinkReply()])
        let scene = await Self.scene(service, id)?.parameters["scene"]
        #expect(scene?["elements"] == ["logo": [1.0, 2.5, 30.0, 40.0]])
        // Not configured: the reveal's shipped scene, found here in the source tree's scenes/.
        guard case .string(let path)? = scene?["path"] else {
            Issue.record("no path: \(String(describing: scene))")
            return
        }
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
        #expect(
            await Self.scene(service, id)
                == .error(
                    "io.curtain.Launcher.SceneUnavailable",
                    ["path": .string(file), "reason": "No such file or directory"]
                )
        )
        try Data(repeating: 0x20, count: 256 * 1024).write(to: URL(fileURLWithPath: file))
        #expect(await Self.scene(service, id)?.error == nil)
        try Data(repeating: 0x20, count: 256 * 1024 + 1).write(to: URL(fileURLWithPath: file))
        #expect(
            await Self.scene(service, id)
                == .error(
                    "io.curtain.Launcher.SceneUnavailable",
                    ["path": .string(file), "reason": "larger than 262144 bytes (the scene document limit)"]
                )
        )
        let other = try Self.service(scene: directory.path)
        let otherID = try await P.launch(other)
        #expect(
            await Self.scene(other, otherID)
                == .error(
                    "io.curtain.Launcher.SceneUnavailable",
                    ["path": .string(directory.path), "reason": "not a regular file"]
                )
        )
    }
}

extension GetSceneTests {
    /// Reload is all or nothing: a configuration whose scene is broken is refused (the error
    /// names the key and the scene's problem) and the running scene stays; a good one is
    /// adopted and the next launch's GetScene reports it.
    @Test(.timeLimit(.minutes(1))) func reloadRefusesABrokenScene() async throws {
        let directory = TestEnvironment.temporaryDirectory("get-scene-reload")
        defer { try? FileManager.default.removeItem(at: directory) }
        let toml = directory.appendingPathComponent("curtain.toml").path
        let scene = directory.appendingPathComponent("next.scene.json").path
        let shipped = TestEnvironment.repository.appendingPathComponent("config/curtain.toml").path
        let text = try String(contentsOfFile: shipped, encoding: .utf8) + "\n"
        try
            (text.replacingOccurrences(
                of: "reveal = \"yula-mask-reveal\"",
                with: "reveal = \"yula-mask-reveal\"\nscene = \"next.scene.json\""
            ))
            .write(toFile: toml, atomically: true, encoding: .utf8)
        try #"{"name": "t", "layers": [{"id": "a", "bounds": [0, 0, 1, 1], "mask": {"layer": "a"}}]}"#.write(
            toFile: scene,
            atomically: true,
            encoding: .utf8
        )
        let configuration = try Configuration(toml: text, file: shipped)
        let service = try DetachedBindings.service(configuration, configurationPath: toml)
        let refused = await P.call(service, "io.curtain.Launcher.Reload")
        #expect(refused.first?.error == "io.curtain.Launcher.ReloadRefused", "\(refused)")
        guard case .array(let errors)? = refused.first?.parameters["errors"], case .string(let first)? = errors.first
        else {
            Issue.record("no errors: \(refused)")
            return
        }
        #expect(
            errors.count == 1 && first.hasPrefix("\(toml):")
                && first.contains(": transitions.scene: \(scene): layers[0].mask"),
            "\(first)"
        )
        // The running configuration (the shipped scene) stays.
        let before = try await P.launch(service)
        #expect(
            await Self.scene(service, before)?.parameters["scene"]?["path"]
                == .string(TestEnvironment.repository.appendingPathComponent("scenes/yula/yula.scene.json").path)
        )
        try #"{"name": "t", "layers": [{"id": "a", "bounds": [0, 0, 1, 1]}]}"#.write(
            toFile: scene,
            atomically: true,
            encoding: .utf8
        )
        #expect(await P.call(service, "io.curtain.Launcher.Reload").first?.error == nil)
        _ = await P.call(service, "io.curtain.Launcher.Control", ["id": .int(before), "action": "cancel"])
        let after = await P.call(
            service,
            "io.curtain.Launcher.Launch",
            ["route": ["normal": "chat"], "policy": "queue"]
        )
        guard case .int(let id)? = after.first?.parameters["launch"]?["id"] else {
            Issue.record("no launch: \(after)")
            return
        }
        #expect(await Self.scene(service, id)?.parameters["scene"]?["path"] == .string(scene))
        // The earlier launch keeps the scene it was requested with.
        #expect(
            await Self.scene(service, before)?.parameters["scene"]?["path"]
                == .string(TestEnvironment.repository.appendingPathComponent("scenes/yula/yula.scene.json").path)
        )
    }
}

extension GetSceneTests {
    /// An app's element report may carry Hero's modifiers (seed 004); a bad one is
    /// InvalidParameter naming it, and nothing of the report is taken.
    @Test(.timeLimit(.minutes(1))) func reportedModifiersAreCheckedAndKept() async throws {
        let service = try Self.service(scene: nil)
        let id = try await P.launch(service)
        func ready(_ modifiers: JSONValue) async -> [VarlinkReply] {
            await P.call(
                service,
                "io.curtain.App.Ready",
                [
                    "launch": .int(id), "stage": "skeleton",
                    "elements": ["logo": ["x": 1, "y": 2, "width": 3, "height": 4, "modifiers": modifiers]],
                ]
            )
        }
        // Types are the interface's (Modifiers): its type checker names the parameter; values
        // out of range or unparsable, the bindings name exactly.
        #expect(await ready(["scale": "big"]) == [P.invalid("elements")])
        #expect(await ready(["timing": "wobbly"]) == [P.invalid("elements.logo.modifiers.timing")])
        #expect(await ready(["duration": 3600.5]) == [P.invalid("elements.logo.modifiers.duration")])
        #expect(await ready(["blur": 1]) == [P.invalid("elements")])
        #expect(await Self.scene(service, id)?.parameters["scene"]?["elements"] == [:])
        #expect(
            await ready([
                "fade": false, "duration": 3600, "delay": 0, "translate": ["x": 1, "y": 2], "timing": "easeOut",
            ]) == [VarlinkReply()]
        )
        #expect(await Self.scene(service, id)?.parameters["scene"]?["elements"] == ["logo": [1.0, 2.0, 3.0, 4.0]])
        let parsed = try Wire.elements([
            "logo": ["x": 1, "y": 2, "width": 3, "height": 4, "modifiers": ["scale": 0.5, "timing": "easeOut"]]
        ])
        #expect(parsed["logo"]?.modifiers == Hero.ElementModifiers(scale: 0.5, timing: "easeOut"))
    }
}
