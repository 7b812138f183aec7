import CurtainCore
import CurtainTestKit
import Foundation
import Testing

/// Runs the built `curtainctl` as a whole process, as a user or script would.
enum CLI {
    static let executable = TestEnvironment.product("curtainctl")

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: String...) async throws -> Result {
        let r = try await TestProcess.run(executable, arguments)
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }
}

@Suite struct CurveCommandTests {
    @Test func printsXAndYPerInput() async throws {
        let r = try await CLI.run("curve", "cubic-bezier(0.42, 0, 0.58, 1)", "--at", "0", "0.5", "1")
        #expect(r.status == 0)
        #expect(r.stdout == "0 0\n0.5 0.5\n1 1\n")
    }

    @Test func fullPrecisionAndNegativeInputs() async throws {
        let r = try await CLI.run("curve", "ease", "--at", "0.25", "-0.5")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let y = Double(lines[0].split(separator: " ")[1])!
        #expect(y == TimingFunction.ease.value(at: 0.25))  // round-trips exactly
        #expect(lines[1] == "-0.5 -0.2")
    }

    @Test func samplesAndJSON() async throws {
        let r = try await CLI.run("curve", "linear", "--samples", "3", "--json")
        #expect(r.stdout == "[{\"x\":0,\"y\":0},{\"x\":0.5,\"y\":0.5},{\"x\":1,\"y\":1}]\n")
        #expect(try await CLI.run("curve", "linear", "--samples", "1").status == 2)
    }

    @Test func beforeFlag() async throws {
        #expect(try await CLI.run("curve", "step-start", "--at", "0").stdout == "0 1\n")
        #expect(try await CLI.run("curve", "step-start", "--at", "0", "--before").stdout == "0 0\n")
    }

    @Test func springTakesSeconds() async throws {
        let r = try await CLI.run("curve", "spring(1 100 10 0)", "--at", "0.1")
        #expect(r.stdout == "0.1 \(Spring(stiffness: 100, damping: 10).value(atTime: 0.1))\n")
    }

    @Test func badFunctionExitsWithTheParseError() async throws {
        let r = try await CLI.run("curve", "cubic-bezier(1.2, 0, 0, 1)", "--at", "0.5")
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "curtainctl curve: cubic-bezier(1.2, 0, 0, 1): x1 must be within [0, 1]\n")
    }

    @Test func writesAnSVG() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("curve-\(getpid()).svg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try await CLI.run("curve", "ease-out", "--samples", "4", "--svg", path)
        #expect(r.status == 0)
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.components(separatedBy: "<circle").count - 1 == 4)
    }
}

@Suite struct TimelineCommandTests {
    @Test func presetFramesAtTheRequestedRate() async throws {
        let r = try await CLI.run("timeline", "yula-mask-reveal", "--fps", "10")
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 1 + 7)  // header + frames at 0, 0.1, …, 0.6
        #expect(lines[0].hasPrefix("time"))
        #expect(lines[7].hasPrefix("0.6 "))
    }

    @Test func jsonFramesCarryScheduledTimesAndValues() async throws {
        let r = try await CLI.run(
            "timeline",
            "yula-mask-reveal",
            "--fps",
            "60",
            "--json",
            "--param",
            "screen.height=812"
        )
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let frames = object["frames"] as! [[String: Any]]
        #expect(frames.count == 37)
        let last = frames.last!["values"] as! [String: Double]
        #expect(abs(last["mask.scale"]! - 18 * 812 / 667) < 1e-12)
        #expect(frames[6]["t"] as! Double == 0.1)
    }

    @Test func fileSourceAndErrors() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tl-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try
            #"{"name": "t", "animations": [{"layer": "a", "property": "opacity", "from": 0, "to": 1, "duration": 0.5}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let ok = try await CLI.run("timeline", path, "--fps", "4")
        #expect(ok.stdout == "time  a.opacity\n0     0\n0.25  0.5\n0.5   0\n")  // removed after its end

        try #"{"name": "t", "animations": [{"layer": "a", "property": "opacity", "from": 0, "to": 1}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let bad = try await CLI.run("timeline", path)
        #expect(bad.status == 2)
        #expect(bad.stderr == "curtainctl timeline: \(path): animations[0].duration: is required (seconds)\n")

        let missing = try await CLI.run("timeline", "no-such-preset")
        #expect(missing.status == 2)
        #expect(
            missing.stderr.contains(
                "is neither a file nor a preset (presets: fade, fade-in, flip, hero, logo-move, mask-reveal, panel-blur, slide, yula-appear, yula-mask-reveal)"
            )
        )
    }

    @Test func sourcePrintsADocumentThatCompilesToTheSameTimeline() async throws {
        let r = try await CLI.run("timeline", "yula-mask-reveal", "--source")
        let reparsed = try Timeline(document: TimelineDocument(json: Array(r.stdout.utf8)))
        let original = try Timeline(document: Presets.document(named: "yula-mask-reveal")!)
        #expect(reparsed == original)
    }
}

@Suite struct ConfigAndRouteCommandTests {
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/curtain.toml").path

    @Test func shippedConfigurationChecksClean() async throws {
        let r = try await CLI.run("config", "check", Self.shipped)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout
                == "\(Self.shipped): ok — 2 apps, 4 deep-link rules, 2 push rules, fallback shop/home, display 1920×1080 at 60 Hz, transitions yula-appear / yula-mask-reveal\n"
        )
    }

    @Test func problemsAreListedWithLocations() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(getpid()).toml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "[display]\nwidth = 0\n\n[[apps]]\nname = \"a\"\nexec = [\"/bin/a\"]\ncolour = \"red\"\n".write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        let r = try await CLI.run("config", "check", path)
        #expect(r.status == 1)
        #expect(
            r.stderr == """
                \(path):2:1: display.width: 0.0 is outside 1.0...32768.0
                \(path):7:1: apps[0].colour: unknown key 'colour' (known here: default_screen, direction, environment, exec, name, readiness, screens, single_instance, unit, warm, working_directory)
                curtainctl config check: \(path) has 2 problems

                """
        )
        #expect(try await CLI.run("config", "check", path + ".missing").status == 2)
    }

    /// `[transitions] scene` is checked by config check: a broken scene is a problem with the
    /// key's file:line, the scene's own path and what is wrong in it.
    @Test func aBrokenSceneIsAProblem() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scene-check-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("curtain.toml").path
        try #"{"name": "t", "layers": [{"id": "a", "bounds": [0, 0, 1, 1], "contents": "logo.png"}]}"#
            .write(toFile: directory.path + "/my.scene.json", atomically: true, encoding: .utf8)
        try "[transitions]\nreveal = \"fade\"\nscene = \"my.scene.json\"\n".write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        let r = try await CLI.run("config", "check", path)
        #expect(r.status == 1)
        #expect(
            r.stderr == """
                \(path):3:1: transitions.scene: \(directory.path)/my.scene.json: asset 'logo.png': no such file (looked for \(directory.path)/logo.png)
                curtainctl config check: \(path) has 1 problem

                """
        )
    }

    @Test func explainShowsEveryRulesVerdict() async throws {
        let r = try await CLI.run(
            "route",
            "explain",
            "--deeplink",
            "shop://product/42?ref=mail",
            "--config",
            Self.shipped
        )
        #expect(r.status == 0)
        #expect(
            r.stdout == """
                destination: shop/product  id=42 referrer=mail
                rules:
                  ✗ 1. shop://product/sale → shop/sale — no match: segment 1 is '42', not 'sale'
                  ✓ 2. shop://product/<int:id> → shop/product — won
                  ✗ 3. shop://search/<path:terms> → shop/search — no match: host 'product' is not 'search'
                  ✗ 4. chat://thread/<uuid:thread> → chat/thread — no match: scheme 'shop' is not 'chat'

                """
        )
        let push = try await CLI.run(
            "route",
            "explain",
            "--push",
            #"{"aps": {"category": "chat"}, "target": {"thread": "t1"}}"#,
            "--config",
            Self.shipped
        )
        #expect(push.stdout.hasPrefix("destination: chat/thread  thread=t1\n"))
        #expect(
            push.stdout.contains(
                "· 2. push [aps.category == \"chat\"] → chat/inbox — matched, lost to rule 1: fewer conditions (1 < 2)"
            )
        )
    }

    @Test func badInputExitsTwo() async throws {
        let bad = try await CLI.run("route", "explain", "--deeplink", "shop://x/%zz", "--config", Self.shipped)
        #expect(bad.status == 2)
        #expect(
            bad.stderr
                == "curtainctl route explain: invalid deep link 'shop://x/%zz': '%zz' has a '%' that is not followed by two hex digits\n"
        )
        let json = try await CLI.run("route", "explain", "--push", "[1]", "--config", Self.shipped)
        #expect(json.stderr == "curtainctl route explain: --push: the payload must be a JSON object\n")
        #expect(try await CLI.run("route", "explain", "--config", Self.shipped).status == 2)
    }
}
