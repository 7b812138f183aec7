import CurtainTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `curtainctl render`, run as a user would: curtainctl executes curtainctl-render, which
/// finds the shipped scene in the source tree's scenes/ and writes PNGs.
@Suite(.serialized) struct RenderCommandTests {
    let directory: String = {
        var template = Array("/tmp/curtain-render-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }()

    func isPNG(_ path: String) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 8)
        return fread(&header, 1, 8, file) == 8 && header == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    }

    @Test func framesAndSheet() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        let r = try await CLI.run(
            "render",
            "yula-mask-reveal",
            "--size",
            "120x200",
            "--at",
            "0",
            "0.12",
            "0.6",
            "--destination",
            "#2ecc71",
            "--out",
            directory + "/frames",
            "--sheet",
            directory + "/sheet.png"
        )
        #expect(r.status == 0, "\(r.stderr)")
        let files = ["t0000ms", "t0120ms", "t0600ms"].map { "\(directory)/frames/yula-mask-reveal-\($0).png" }
        #expect(r.stdout == (files + [directory + "/sheet.png"]).joined(separator: "\n") + "\n")
        for file in files + [directory + "/sheet.png"] { #expect(isPNG(file), "\(file)") }
    }

    @Test func everyFrameAtARate() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        let r = try await CLI.run("render", "yula-appear", "--size", "60x100", "--fps", "10", "--out", directory)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").count == 4)  // 0, 0.1, 0.2, 0.3
        #expect(isPNG(directory + "/yula-appear-0003.png"))
    }

    /// Seeds 001, 003, 004: each preset is drawn over its own shipped scene; panel-blur takes
    /// the previous screen, hero the reported elements.
    @Test func seedPresetsUseTheirScenes() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        for preset in ["slide", "flip", "panel-blur"] {
            let r = try await CLI.run("render", preset, "--size", "60x100", "--at", "0.5", "--out", directory)
            #expect(r.status == 0 && r.stdout == "\(directory)/\(preset)-t0500ms.png\n", "\(preset): \(r.stderr)")
        }
        let previous = try await CLI.run(
            "render",
            "panel-blur",
            "--size",
            "60x100",
            "--previous",
            directory + "/slide-t0500ms.png",
            "--at",
            "2.5",
            "--out",
            directory
        )
        #expect(previous.status == 0, "\(previous.stderr)")
        let hero = try await CLI.run(
            "render",
            "hero",
            "--size",
            "60x100",
            "--element",
            "logo=4,4,10,10",
            "--sheet",
            directory + "/hero.png"
        )
        #expect(hero.status == 0 && isPNG(directory + "/hero.png"), "\(hero.stderr)")
        let bad: [([String], String)] = [
            (
                ["render", "hero", "--element", "logo=1,2,3", "--at", "0", "--out", directory],
                "curtainctl render: --element 'logo=1,2,3' is not id=x,y,width,height\n"
            ),
            (
                ["render", "panel-blur", "--previous", directory + "/none.png", "--at", "0", "--out", directory],
                "curtainctl render: --previous \(directory)/none.png: No such file or directory\n"
            ),
        ]
        for (arguments, message) in bad {
            let r = try await TestProcess.run(CLI.executable, arguments)
            #expect(r.status == 2 && r.stderr == message, "\(arguments): \(r.stderr)")
        }
    }

    @Test func sceneCheck() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let ok = try await CLI.run("scene", "check", root + "/scenes/yula/yula.scene.json")
        let checked = "\(root)/scenes/yula/yula.scene.json: ok — 8 layers, 2 assets (logo.svg, logo-mask.svg)\n"
        #expect(ok.status == 0 && ok.stdout == checked, "\(ok.stderr)")
        let file = fopen(directory + "/bad.scene.json", "wb")!
        fputs(
            #"{"name": "b", "layers": [{"id": "w", "role": "destination", "bounds": [0, 0, 1, 1], "mask": {"layer": "m"}}]}"#,
            file
        )
        fclose(file)
        let bad = try await CLI.run("scene", "check", directory + "/bad.scene.json")
        #expect(
            bad.status == 2
                && bad.stderr
                    == "curtainctl scene check: \(directory)/bad.scene.json: layers[0].mask.layer: unknown layer 'm' (layers: w)\n"
        )
    }

    @Test func badInputIsRefusedPrecisely() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        let cases: [([String], String)] = [
            (
                ["render", "yula-mask-reveal", "--size", "0x10", "--at", "0", "--out", directory],
                "curtainctl render: --size 0x10 is outside 1…8192 in each dimension\n"
            ),
            (
                ["render", "yula-mask-reveal", "--size", "big", "--at", "0", "--out", directory],
                "curtainctl render: --size 'big' is not WIDTHxHEIGHT (e.g. 375x667)\n"
            ),
            (
                ["render", "yula-mask-reveal", "--destination", "green", "--sheet", directory + "/s.png"],
                "curtainctl render: --destination 'green' is neither a #rgb, #rgba, #rrggbb or #rrggbbaa colour nor a PNG file\n"
            ),
            (
                ["render", "yula-mask-reveal", "--at", "0"],
                "curtainctl render: nothing to write: give --out DIR, --sheet FILE.png and/or --webp FILE.webp\n"
            ),
            (
                ["render", "yula-mask-reveal", "--at", "0", "--fps", "10", "--out", directory],
                "curtainctl render: give --at or --fps, not both\n"
            ),
            (
                ["render", "no-such", "--at", "0", "--out", directory],
                "curtainctl render: 'no-such' is neither a file nor a preset (presets: fade, fade-in, flip, hero, logo-move, mask-reveal, panel-blur, slide, yula-appear, yula-mask-reveal)\n"
            ),
            (
                [
                    "render", "yula-mask-reveal", "--scene", directory + "/none.scene.json", "--at", "0", "--out",
                    directory,
                ], "curtainctl render: \(directory)/none.scene.json: cannot be read: No such file or directory\n"
            ),
        ]
        for (arguments, message) in cases {
            let r = try await TestProcess.run(CLI.executable, arguments)
            #expect(r.status == 2 && r.stderr == message, "\(arguments): \(r.stderr)")
        }
    }
}
