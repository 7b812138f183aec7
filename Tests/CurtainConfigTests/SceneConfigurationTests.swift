import CurtainCore
import Foundation
import Testing

@testable import CurtainConfig

/// `[transitions] scene`: resolved against the configuration file's directory, checked whole
/// (document, limits, masks, assets) with file:line errors, and reported to the snapshot.
@Suite struct SceneConfigurationTests {
    /// A directory with a configuration file, a scene and its asset; removed by the caller.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "curtain-scene-config-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("art"),
            withIntermediateDirectories: true
        )
        try Self.scene.write(to: url.appendingPathComponent("art/my.scene.json"), atomically: true, encoding: .utf8)
        try "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/>".write(
            to: url.appendingPathComponent("art/logo.svg"),
            atomically: true,
            encoding: .utf8
        )
        return url
    }

    static let scene =
        ##"{"name": "mine", "layers": [{"id": "splash", "bounds": [0, 0, 10, 10], "backgroundColor": "#000000"}, {"id": "logo", "bounds": [0, 0, 8, 8], "contents": "logo.svg"}]}"##

    func load(_ toml: String, in directory: URL) throws(ConfigurationErrors) -> Configuration {
        try Configuration(toml: toml, file: directory.appendingPathComponent("curtain.toml").path)
    }

    func errors(_ toml: String, in directory: URL) -> [String] {
        do {
            _ = try load(toml, in: directory)
            return []
        } catch { return error.errors.map(\.description) }
    }

    @Test func aRelativeOrAbsoluteSceneIsResolved() throws {
        let d = try Self.directory()
        defer { try? FileManager.default.removeItem(at: d) }
        let expected = d.appendingPathComponent("art/my.scene.json").path
        let relative = try load("[transitions]\nscene = \"art/my.scene.json\"\n", in: d)
        #expect(relative.transitions.scene == expected)
        #expect(ConfigurationSnapshot(relative).scene == .init(path: expected, name: expected))
        let absolute = try load("[transitions]\nscene = \"\(expected)\"\n", in: d)
        #expect(absolute.transitions.scene == expected)
        // Reduced motion changes the motion, not the scene.
        let reduced = try load(
            "[display]\nreduced_motion = true\n[transitions]\nscene = \"art/my.scene.json\"\n",
            in: d
        )
        #expect(reduced.effectiveTransitions.scene == expected)
    }

    @Test func withoutASceneTheRevealsShippedSceneIsUsed() throws {
        let slide = try Configuration(toml: "[transitions]\nreveal = \"slide\"\n", file: "c.toml")
        #expect(slide.transitions.scene == nil)
        let reference = ConfigurationSnapshot(slide).scene
        #expect(reference.name == "slide/slide.scene.json")
        // Found in this source tree's scenes/ (the test binary lies under .build).
        #expect(reference.path?.hasSuffix("/scenes/slide/slide.scene.json") == true)
        // A reveal without a shipped scene of its own: seed 000's.
        #expect(
            ConfigurationSnapshot(try Configuration(toml: "[transitions]\nreveal = \"fade\"\n", file: "c.toml")).scene
                .name == "yula/yula.scene.json"
        )
        // $CURTAIN_SCENES, then share/curtain/scenes under the binary's prefix.
        #expect(
            SceneLocator.shipped("a/b.scene.json", environment: "/opt/s", executable: nil) == "/opt/s/a/b.scene.json"
        )
        #expect(
            SceneLocator.shipped("a/b.scene.json", environment: nil, executable: "/nonexistent/bin/curtaind") == nil
        )
    }

    @Test func aBrokenSceneIsAConfigurationError() throws {
        let d = try Self.directory()
        defer { try? FileManager.default.removeItem(at: d) }
        let file = d.appendingPathComponent("curtain.toml").path
        let art = d.appendingPathComponent("art").path
        #expect(
            errors("[transitions]\nscene = \"missing.scene.json\"\n", in: d)
                == [
                    "\(file):2:1: transitions.scene: \(d.path)/missing.scene.json: cannot be read: No such file or directory"
                ]
        )
        #expect(
            errors("[transitions]\nscene = \"\"\n", in: d)
                == [
                    "\(file):2:1: transitions.scene: is empty; name a *.scene.json file, or leave the key out for the reveal's own scene"
                ]
        )
        #expect(
            errors("[transitions]\nscene = \"art\"\n", in: d) == [
                "\(file):2:1: transitions.scene: \(art): is not a regular file"
            ]
        )
        #expect(errors("[transitions]\nscene = 3\n", in: d).count == 1)
        // The document: syntax with line:column, then key paths (an unknown mask layer).
        try "{\n  \"name\": }".write(toFile: art + "/bad.scene.json", atomically: true, encoding: .utf8)
        #expect(
            errors("[transitions]\nscene = \"art/bad.scene.json\"\n", in: d).first?.hasPrefix(
                "\(file):2:1: transitions.scene: \(art)/bad.scene.json:2:11: JSON syntax error"
            ) == true
        )
        try #"{"name": "t", "layers": [{"id": "a", "bounds": [0, 0, 1, 1], "mask": {"layer": "m"}}]}"#.write(
            toFile: art + "/mask.scene.json",
            atomically: true,
            encoding: .utf8
        )
        #expect(
            errors("[transitions]\nscene = \"art/mask.scene.json\"\n", in: d)
                == [
                    "\(file):2:1: transitions.scene: \(art)/mask.scene.json: layers[0].mask.layer: unknown layer 'm' (layers: a)"
                ]
        )
        // Assets: missing, and outside the scene's directory.
        try Self.scene.replacingOccurrences(of: "logo.svg", with: "gone.svg").write(
            toFile: art + "/gone.scene.json",
            atomically: true,
            encoding: .utf8
        )
        #expect(
            errors("[transitions]\nscene = \"art/gone.scene.json\"\n", in: d)
                == [
                    "\(file):2:1: transitions.scene: \(art)/gone.scene.json: asset 'gone.svg': no such file (looked for \(art)/gone.svg)"
                ]
        )
        try FileManager.default.createSymbolicLink(atPath: art + "/escape.svg", withDestinationPath: "/etc/hostname")
        try Self.scene.replacingOccurrences(of: "logo.svg", with: "escape.svg").write(
            toFile: art + "/escape.scene.json",
            atomically: true,
            encoding: .utf8
        )
        #expect(
            errors("[transitions]\nscene = \"art/escape.scene.json\"\n", in: d).first?.hasSuffix(
                "asset 'escape.svg': resolves to /etc/hostname, outside the scene's directory \(art) (a symbolic link?)"
            ) == true
        )
    }

    /// The document limit (256 KiB) and the asset limit (8 MiB): at the limit it loads, one
    /// byte more is refused with the limit named.
    @Test func sceneLimitsAtTheBoundary() throws {
        let d = try Self.directory()
        defer { try? FileManager.default.removeItem(at: d) }
        let art = d.appendingPathComponent("art").path
        let toml = "[transitions]\nscene = \"art/my.scene.json\"\n"
        func pad(_ count: Int) throws {
            try (Self.scene + String(repeating: " ", count: count - Self.scene.utf8.count)).write(
                toFile: art + "/my.scene.json",
                atomically: true,
                encoding: .utf8
            )
        }
        try pad(Scene.Limits.documentSize)
        #expect(errors(toml, in: d) == [])
        try pad(Scene.Limits.documentSize + 1)
        #expect(
            errors(toml, in: d).first?.hasSuffix("my.scene.json: is 262145 bytes, more than the limit of 262144")
                == true
        )
        try pad(Scene.Limits.documentSize)
        let svg = "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/>"
        try Data((svg + String(repeating: " ", count: Scene.Limits.assetBytes - svg.utf8.count)).utf8).write(
            to: URL(fileURLWithPath: art + "/logo.svg")
        )
        #expect(errors(toml, in: d) == [])
        try Data((svg + String(repeating: " ", count: Scene.Limits.assetBytes + 1 - svg.utf8.count)).utf8).write(
            to: URL(fileURLWithPath: art + "/logo.svg")
        )
        #expect(
            errors(toml, in: d).first?.hasSuffix("asset 'logo.svg': is 8388609 bytes, more than the limit of 8388608")
                == true
        )
    }
}
