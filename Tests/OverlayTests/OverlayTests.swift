import CurtainRender
import CurtainTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// curtain-overlay on real headless compositors with a real curtaind, checked on screenshots.
/// Serialized: one compositor at a time on a shared CI machine.
@Suite(.serialized) struct OverlayTests {
    static let swayTools = ["sway", "swaymsg", "grim", "setpriv"]
    static let westonTools = ["weston", "weston-screenshooter"]

    /// The splash's gradient runs from blue-violet to pink: a pixel is "splash" when its blue
    /// channel clearly beats green (the app is green, the sway background black).
    static func splashFraction(_ screen: Screen) -> Double {
        Double(screen.rgb.count { p in Int(p & 0xFF) > Int((p >> 8) & 0xFF) + 60 }) / Double(screen.rgb.count)
    }

    /// Seed 000 end to end on sway: the splash covers the app, mid-reveal (held by a seek) the
    /// app shows through the logo-shaped hole exactly as `curtainctl render` draws that frame,
    /// and once revealed the app is all visible and a click reaches it (empty input region).
    @Test(.enabled(if: Overlay.available(swayTools)), .timeLimit(.minutes(2)))
    func revealOnSway() async throws {
        try #require(
            Overlay.missing(Self.swayTools).isEmpty,
            "missing \(Overlay.missing(Self.swayTools)) (make setup installs them)"
        )
        let compositor = try await Compositor.sway()
        let daemon = try await Daemon(compositor: compositor)
        let overlay = try await startOverlay(compositor, daemon)
        defer { Overlay.killTree(overlay.pid) }
        #expect(
            await overlay.waitFor(
                "surface \(Overlay.width)×\(Overlay.height) on the overlay layer",
                within: Overlay.timeout
            ),
            "\(overlay.output)\nsway: \(compositor.process.output.suffix(3000))"
        )

        let launched = try await daemon.ctl("launch", "--normal", "shop")
        #expect(launched.status == 0, "\(launched)")
        let watch = try await TestProcess(
            TestEnvironment.product("curtainctl"),
            ["watch", "1", "--frames", "--json", "short"],
            environment: ["CURTAIN_SOCKET": daemon.socket]
        )
        defer { Overlay.killTree(watch.pid) }
        // The app's window is up under the splash, which covers it entirely.
        #expect(
            await daemon.process.waitFor("mapped \(Overlay.width)x\(Overlay.height)", within: Overlay.timeout),
            "\(daemon.process.output)"
        )
        let shots = TestEnvironment.temporaryDirectory("overlay-shots")
        defer { try? FileManager.default.removeItem(at: shots) }
        var screen: Screen? = nil
        let covered = try await Overlay.eventually {
            screen = try await compositor.screenshot(shots)
            return Self.splashFraction(screen!) > 0.95 && screen!.fraction(of: Overlay.appColor) == 0
        }
        // The scene came from curtaind (GetScene), not the fallback.
        #expect(
            overlay.output.contains("launch 1: scene /") && !overlay.output.contains("GetScene"),
            "\(overlay.output)"
        )
        #expect(
            covered,
            "before the reveal the splash covers the app: \(screen.map { "\(Self.splashFraction($0)) splash, \($0.fraction(of: Overlay.appColor)) app" } ?? "")"
        )

        // Ready: the reveal starts; a seek to half way holds its frame still.
        try daemon.makeAppReady()
        let expected = try await Self.seekHalfWayAndRender(
            daemon,
            watch,
            shots,
            width: Overlay.width,
            height: Overlay.height
        )
        // The frame shows a real hole: some app, some splash (not a trivially equal picture).
        #expect(expected.fraction(of: Overlay.appColor) > 0.2 && Self.splashFraction(expected) > 0.05)
        // Tolerance: at most 1% of the pixels differ by more than 24 levels in a channel (the
        // pointer sway draws, antialiased edges).
        let matches = try await Overlay.eventually {
            screen = try await compositor.screenshot(shots)
            return screen!.mismatch(expected) <= 0.01
        }
        #expect(
            matches,
            "mid-reveal the screen matches curtainctl render of the same frame: \(screen.map { "\($0.mismatch(expected)) differ (\($0.path) vs \(expected.path))" } ?? "")"
        )

        // Played to the end: the app is all visible and gets the click.
        #expect(try await daemon.ctl("control", "1", "finish").status == 0)
        #expect(await watch.waitFor("\"to\":\"revealed\"", within: Overlay.timeout))
        let open = try await Overlay.eventually {
            screen = try await compositor.screenshot(shots)
            return screen!.fraction(of: Overlay.appColor) >= 0.99
        }
        #expect(
            open,
            "after revealed the app is fully visible: \(screen.map { "\($0.fraction(of: Overlay.appColor))" } ?? "")"
        )
        try await compositor.swaymsg("seat", "seat0", "cursor", "set", "320", "240")
        try await compositor.swaymsg("seat", "seat0", "cursor", "press", "button1")
        try await compositor.swaymsg("seat", "seat0", "cursor", "release", "button1")
        #expect(
            await daemon.process.waitFor("click 320 240", within: Overlay.timeout),
            "the click reaches the app: \(daemon.process.output.suffix(1500))"
        )
    }

    /// Once launch 1 reveals: a seek to `progress` (half way unless said) holds its frame
    /// still, and that frame (the watch's last line at it) as `curtainctl render --events`
    /// draws it at `width` × `height` points and `scale` over the app's colour.
    static func seekHalfWayAndRender(
        _ daemon: Daemon,
        _ watch: TestProcess,
        _ shots: URL,
        width: Int,
        height: Int,
        scale: Int = 1,
        progress: String = "0.5"
    ) async throws -> Screen {
        #expect(await watch.waitFor("\"to\":\"revealing\"", within: Overlay.timeout), "\(watch.output.suffix(2000))")
        let seek = try await daemon.ctl("control", "1", "seek", progress)
        #expect(seek.status == 0, "\(seek)")
        #expect(await watch.waitFor("\"progress\":\(progress),", within: Overlay.timeout))
        let held = try #require(
            watch.output.split(separator: "\n").last { $0.contains("\"progress\":\(progress),") }
        )
        let events = shots.appendingPathComponent("held.jsonl")
        try String(held).write(to: events, atomically: true, encoding: .utf8)
        return try await renderHeld(shots, width: width, height: height, scale: scale)
    }

    /// The held frame (held.jsonl in `shots`) as `curtainctl render --events --size
    /// WIDTHxHEIGHT --scale SCALE` draws it over the app's colour.
    static func renderHeld(_ shots: URL, width: Int, height: Int, scale: Int) async throws -> Screen {
        let name = "expected-\(width)x\(height)@\(scale)"
        let rendered = try await TestProcess.run(
            TestEnvironment.product("curtainctl"),
            [
                "render", "--events", shots.appendingPathComponent("held.jsonl").path, "--size",
                "\(width)x\(height)", "--scale", "\(scale)", "--destination",
                "#" + String(Overlay.appColor, radix: 16), "--out", shots.appendingPathComponent(name).path,
            ]
        )
        #expect(rendered.status == 0, "\(rendered)")
        let path = shots.appendingPathComponent("\(name)/launch1-0000.png").path
        return Screen(image: try #require(Image.readPNG(path)), path: path)
    }

    /// The columns where the app shows through the hole (the logo's shape), first to last.
    static func holeColumns(_ screen: Screen) -> ClosedRange<Int>? {
        var first: Int? = nil
        var last: Int? = nil
        for x in 0..<screen.width
        where (0..<screen.height).contains(where: { Screen.close(screen.at(x, $0), Overlay.appColor) }) {
            if first == nil { first = x }
            last = x
        }
        return first.map { $0...last! }
    }

    /// Launch 1 (seed 000 over the stand-in app) made ready and held mid-reveal by a seek to
    /// `progress` (0.5 unless said); returns the watch and that frame as `curtainctl render
    /// --events` draws it at `width` × `height` points and `scale` over the app's colour.
    static func holdMidReveal(
        _ daemon: Daemon,
        _ shots: URL,
        width: Int,
        height: Int,
        scale: Int = 1,
        progress: String = "0.5"
    ) async throws -> (watch: TestProcess, expected: Screen) {
        let launched = try await daemon.ctl("launch", "--normal", "shop")
        #expect(launched.status == 0, "\(launched)")
        let watch = try await TestProcess(
            TestEnvironment.product("curtainctl"),
            ["watch", "1", "--frames", "--json", "short"],
            environment: ["CURTAIN_SOCKET": daemon.socket]
        )
        // The app prints `mapped` just before its reader opens the FIFO: ready once it does.
        #expect(
            await Overlay.eventually { (try? daemon.makeAppReady()) != nil },
            "the app waits on its FIFO: \(daemon.process.output)"
        )
        let expected = try await Self.seekHalfWayAndRender(
            daemon,
            watch,
            shots,
            width: width,
            height: height,
            scale: scale,
            progress: progress
        )
        #expect(
            expected.fraction(of: Overlay.appColor) > 0.02 && Self.splashFraction(expected) > 0.05,
            "a real hole: some app, some splash"
        )
        return (watch, expected)
    }

    /// How wide the hole's edge is, in physical pixels: along every row, the pixels between
    /// the last one of the app's colour and the first clearly of the splash (blue beats green
    /// by 60), averaged over the row crossings. Antialiasing at the screen's own resolution
    /// gives about one; a frame drawn at half the resolution and scaled up, about two or more.
    static func edgeWidth(_ screen: Screen) -> Double {
        var total = 0
        var crossings = 0
        for y in 0..<screen.height {
            var x = 0
            while x < screen.width - 1 {
                guard Screen.close(screen.at(x, y), Overlay.appColor),
                    !Screen.close(screen.at(x + 1, y), Overlay.appColor)
                else {
                    x += 1
                    continue
                }
                // Leaving the app to the right: count the in-between pixels up to the splash.
                var end = x + 1
                while end < screen.width, !Self.isSplash(screen.at(end, y)),
                    !Screen.close(screen.at(end, y), Overlay.appColor), end - x <= 8
                { end += 1 }
                if end < screen.width, Self.isSplash(screen.at(end, y)) {
                    total += end - x - 1
                    crossings += 1
                }
                x = end
            }
        }
        return crossings == 0 ? .infinity : Double(total) / Double(crossings)
    }

    static func isSplash(_ p: UInt32) -> Bool { Int(p & 0xFF) > Int((p >> 8) & 0xFF) + 60 }

    /// A scale-2 output (sway's config: 1280×960 pixels, 640×480 logical points; curtaind's
    /// `[display]` the points): the overlay lays the scene out in points and draws it at scale
    /// 2 into 1280×960 buffers (wl_surface.set_buffer_scale 2), so grim's screenshot (physical
    /// pixels) of the reveal held at 0.3 (a logo-shaped hole inside the screen, the logo faded)
    /// matches `curtainctl render --size 640x480 --scale 2` with the tolerance of revealOnSway
    /// (≤ 1% of pixels beyond 24 levels a channel), and the logo's hole is twice as wide in
    /// pixels as at scale 1 (`--scale 1` of the same frame). Laid out in pixels (the scene for
    /// a 1280×960 screen), the hole is as wide as at scale 1.
    @Test(.enabled(if: Overlay.available(swayTools)), .timeLimit(.minutes(2)))
    func heldFrameAtScale2() async throws {
        try #require(
            Overlay.missing(Self.swayTools).isEmpty,
            "missing \(Overlay.missing(Self.swayTools)) (make setup installs them)"
        )
        let (width, height) = (Overlay.width * 2, Overlay.height * 2)
        let compositor = try await Compositor.sway(width: width, height: height, scale: 2)
        let daemon = try await Daemon(compositor: compositor)
        let overlay = try await startOverlay(compositor, daemon)
        defer { Overlay.killTree(overlay.pid) }
        #expect(
            await overlay.waitFor(
                "surface \(Overlay.width)×\(Overlay.height) on the overlay layer at scale 2 (\(width)×\(height) pixels)",
                within: Overlay.timeout
            ),
            "\(overlay.output)\nsway: \(compositor.process.output.suffix(3000))"
        )
        let shots = TestEnvironment.temporaryDirectory("overlay-shots")
        defer { try? FileManager.default.removeItem(at: shots) }
        let (watch, expected) = try await Self.holdMidReveal(
            daemon,
            shots,
            width: Overlay.width,
            height: Overlay.height,
            scale: 2,
            progress: "0.3"
        )
        defer { Overlay.killTree(watch.pid) }
        var screen: Screen? = nil
        let matches = try await Overlay.eventually {
            screen = try await compositor.screenshot(shots)
            return screen!.width == width && screen!.mismatch(expected) <= 0.01
        }
        #expect(
            matches,
            "at scale 2 the screen matches curtainctl render --size \(Overlay.width)x\(Overlay.height) --scale 2: \(screen.map { "\($0.width)×\($0.height), \($0.mismatch(expected)) differ (\($0.path) vs \(expected.path))" } ?? "")"
        )
        let atScale1 = try await Self.renderHeld(shots, width: Overlay.width, height: Overlay.height, scale: 1)
        if let screen {
            #expect(
                Self.edgeWidth(screen) <= Self.edgeWidth(expected) + 0.5,
                "edges: \(Self.edgeWidth(screen)) px on screen, \(Self.edgeWidth(expected)) drawn"
            )
            // Columns, not the Screens, in messages: a Screen prints every pixel.
            let onScreen = Self.holeColumns(screen)
            let atOne = Self.holeColumns(atScale1)
            let path = screen.path
            let shown = try #require(onScreen, "a hole on screen: \(path)")
            let one = try #require(atOne, "a hole at scale 1: \(atScale1.path)")
            print("heldFrameAtScale2: the hole is \(shown.count) pixels wide on screen, \(one.count) at scale 1")
            #expect(
                one.count > 20 && one.lowerBound > 0 && one.upperBound < Overlay.width - 1,
                "a logo-shaped hole inside the screen at scale 1: \(one)"
            )
            #expect(
                abs(shown.count - 2 * one.count) <= 4,
                "the logo's hole is twice as wide at scale 2: \(shown) on screen, \(one) at scale 1"
            )
        }
        // One overlay surface for the whole launch: drawn at scale 2 from its first frame.
        #expect(!overlay.output.contains("output scale"), "\(overlay.output)")
    }

    /// The output's scale changes from 1 to 2 mid-launch (swaymsg) while a frame is held: the
    /// overlay draws it again at the new scale. Before, the 1280×960 pixels are 1280×960
    /// points (the screenshot matches `curtainctl render --size 1280x960`); after, 640×480
    /// points at scale 2 (it matches `--size 640x480 --scale 2`), the hole's edge as sharp as
    /// drawn (≈ 1 pixel; a 640×480 frame scaled up by the compositor would give ≈ 2).
    @Test(.enabled(if: Overlay.available(swayTools)), .timeLimit(.minutes(2)))
    func scaleChangeMidLaunchRedraws() async throws {
        try #require(
            Overlay.missing(Self.swayTools).isEmpty,
            "missing \(Overlay.missing(Self.swayTools)) (make setup installs them)"
        )
        let (width, height) = (Overlay.width * 2, Overlay.height * 2)
        let compositor = try await Compositor.sway(width: width, height: height, scale: 1)
        // curtaind's [display]: the points after the change (its frames are computed for them).
        let daemon = try await Daemon(compositor: compositor)
        let overlay = try await startOverlay(compositor, daemon)
        defer { Overlay.killTree(overlay.pid) }
        #expect(
            await overlay.waitFor("surface \(width)×\(height) on the overlay layer", within: Overlay.timeout),
            "\(overlay.output)"
        )
        let shots = TestEnvironment.temporaryDirectory("overlay-shots")
        defer { try? FileManager.default.removeItem(at: shots) }
        let (watch, expected) = try await Self.holdMidReveal(
            daemon,
            shots,
            width: Overlay.width,
            height: Overlay.height,
            scale: 2
        )
        defer { Overlay.killTree(watch.pid) }
        let before = try await Self.renderHeld(shots, width: width, height: height, scale: 1)
        var screen: Screen? = nil
        #expect(
            try await Overlay.eventually {
                screen = try await compositor.screenshot(shots)
                return screen!.mismatch(before) <= 0.01
            },
            "at scale 1: \(screen.map { "\($0.mismatch(before)) differ (\($0.path) vs \(before.path))" } ?? "")"
        )

        try await compositor.swaymsg("output", "HEADLESS-1", "scale", "2")
        // The output's scale and the surface's new logical size come as two events, in either order.
        #expect(await overlay.waitFor("output scale 2", within: Overlay.timeout), "\(overlay.output)")
        #expect(
            await overlay.waitFor(
                "surface \(Overlay.width)×\(Overlay.height) on the overlay layer",
                within: Overlay.timeout
            ),
            "\(overlay.output)"
        )
        let matches = try await Overlay.eventually {
            screen = try await compositor.screenshot(shots)
            return screen!.width == width && screen!.mismatch(expected) <= 0.01
        }
        #expect(
            matches,
            "after the change to scale 2: \(screen.map { "\($0.width)×\($0.height), \($0.mismatch(expected)) differ (\($0.path) vs \(expected.path))" } ?? "")"
        )
        let drawn = Self.edgeWidth(expected)
        if let screen {
            let shown = Self.edgeWidth(screen)
            print(
                "scaleChangeMidLaunchRedraws: hole edge \(shown) px on screen, \(drawn) px drawn by curtainctl render"
            )
            #expect(shown <= drawn + 0.5, "the edge is as sharp as drawn: \(shown) px on screen, \(drawn) px drawn")
        }
    }

    /// Seed 004 (hero) with elements the app reports (io.curtain.App.Ready): curtaind's
    /// frames already carry the hand-off (it rebuilds the reveal from the elements; GetScene's
    /// `elements` and `hidden` are for the app and for replays), so the overlay, drawing those
    /// values over hero's scene from GetScene, matches `curtainctl render --events` of the held
    /// frame with revealOnSway's tolerance, the logo on its way to the reported frame.
    @Test(.enabled(if: Overlay.available(swayTools)), .timeLimit(.minutes(2)))
    func heroWithReportedElements() async throws {
        try #require(
            Overlay.missing(Self.swayTools).isEmpty,
            "missing \(Overlay.missing(Self.swayTools)) (make setup installs them)"
        )
        let compositor = try await Compositor.sway()
        let daemon = try await Daemon(compositor: compositor, external: true, extra: "[transitions]\nreveal = \"hero\"")
        let overlay = try await startOverlay(compositor, daemon)
        defer { Overlay.killTree(overlay.pid) }
        #expect(await overlay.waitFor("on the overlay layer", within: Overlay.timeout), "\(overlay.output)")
        #expect(try await daemon.ctl("launch", "--normal", "shop").status == 0)
        let watch = try await TestProcess(
            TestEnvironment.product("curtainctl"),
            ["watch", "1", "--frames", "--json", "short"],
            environment: ["CURTAIN_SOCKET": daemon.socket]
        )
        defer { Overlay.killTree(watch.pid) }
        #expect(await overlay.waitFor("launch 1: scene ", within: Overlay.timeout), "\(overlay.output)")
        #expect(overlay.output.contains("hero.scene.json"), "GetScene names hero's scene: \(overlay.output)")
        let python = TestEnvironment.repository.appendingPathComponent(".venv/bin/python").path
        let ready = try await TestProcess.run(
            python,
            [
                "-m", "varlink.cli", "call", "unix:\(daemon.socket)/io.curtain.App.Ready",
                #"{"launch": 1, "elements": {"logo": {"x": 40, "y": 40, "width": 48, "height": 48}}}"#,
            ]
        )
        #expect(ready.status == 0, "\(ready)")
        #expect(await watch.waitFor("\"to\":\"revealing\"", within: Overlay.timeout), "\(watch.output.suffix(2000))")
        #expect(try await daemon.ctl("control", "1", "seek", "0.5").status == 0)
        #expect(await watch.waitFor("\"progress\":0.5,", within: Overlay.timeout))
        let held = try #require(watch.output.split(separator: "\n").last { $0.contains("\"progress\":0.5,") })
        #expect(held.contains("hero.logo"), "the frame animates hero's logo: \(held)")
        let shots = TestEnvironment.temporaryDirectory("overlay-shots")
        defer { try? FileManager.default.removeItem(at: shots) }
        let events = shots.appendingPathComponent("held.jsonl")
        try String(held).write(to: events, atomically: true, encoding: .utf8)
        let scene = TestEnvironment.repository.appendingPathComponent("scenes/hero/hero.scene.json").path
        let rendered = try await TestProcess.run(
            TestEnvironment.product("curtainctl"),
            [
                "render", "--events", events.path, "--scene", scene, "--size", "\(Overlay.width)x\(Overlay.height)",
                // No app window: sway's empty workspace (its clear colour, 0.25 grey) is below.
                "--destination", "#404040", "--out", shots.appendingPathComponent("expected").path,
            ]
        )
        #expect(rendered.status == 0, "\(rendered)")
        let path = shots.appendingPathComponent("expected/launch1-0000.png").path
        let expected = Screen(image: try #require(Image.readPNG(path)), path: path)
        var screen: Screen? = nil
        let matches = try await Overlay.eventually {
            screen = try await compositor.screenshot(shots)
            return screen!.mismatch(expected) <= 0.01
        }
        #expect(
            matches,
            "hero mid-reveal matches curtainctl render: \(screen.map { "\($0.mismatch(expected)) differ (\($0.path) vs \(path))" } ?? "")"
        )
    }

    /// curtaind killed mid-launch: the splash stays (no flash) while it is gone, the overlay
    /// reconnects to the restarted daemon, clears (the interrupted launch ended) and shows the
    /// next launch.
    @Test(.enabled(if: Overlay.available(swayTools)), .timeLimit(.minutes(2)))
    func reconnectsAfterCurtaindRestarts() async throws {
        try #require(
            Overlay.missing(Self.swayTools).isEmpty,
            "missing \(Overlay.missing(Self.swayTools)) (make setup installs them)"
        )
        let compositor = try await Compositor.sway()
        let daemon = try await Daemon(compositor: compositor, external: true)
        let overlay = try await startOverlay(compositor, daemon)
        defer { Overlay.killTree(overlay.pid) }
        #expect(
            await overlay.waitFor("on the overlay layer", within: Overlay.timeout),
            "\(overlay.output)\nsway: \(compositor.process.output.suffix(3000))"
        )
        let shots = TestEnvironment.temporaryDirectory("overlay-shots")
        defer { try? FileManager.default.removeItem(at: shots) }
        #expect(try await daemon.ctl("launch", "--normal", "shop").status == 0)
        var screen: Screen? = nil
        #expect(
            try await Overlay.eventually {
                screen = try await compositor.screenshot(shots)
                return Self.splashFraction(screen!) > 0.95
            },
            "the splash shows: \(screen.map { Self.splashFraction($0) } ?? 0)"
        )

        Overlay.killTree(daemon.process.pid)
        #expect(await overlay.waitFor("curtaind: ", within: Overlay.timeout), "\(overlay.output)")
        // Within the grace the last frame stays: no flash of the app or the desktop.
        screen = try await compositor.screenshot(shots)
        #expect(Self.splashFraction(screen!) > 0.95, "the splash stays while curtaind is away")

        try await daemon.restart()
        #expect(
            await Overlay.eventually {
                overlay.output.components(separatedBy: "connected to curtaind at").count - 1 >= 2
            },
            "the overlay reconnects: \(overlay.output)"
        )
        // The restarted daemon ended the interrupted launch: nothing covers the screen.
        #expect(
            try await Overlay.eventually {
                screen = try await compositor.screenshot(shots)
                return Self.splashFraction(screen!) < 0.01
            },
            "the overlay clears for the ended launch: \(screen.map { Self.splashFraction($0) } ?? 1)"
        )
        let next = try await daemon.ctl("launch", "--normal", "shop")
        #expect(next.status == 0, "\(next)")
        #expect(
            try await Overlay.eventually {
                screen = try await compositor.screenshot(shots)
                return Self.splashFraction(screen!) > 0.95
            },
            "the next launch shows: \(screen.map { Self.splashFraction($0) } ?? 0)"
        )
    }

    /// A scene that does not load: a clear journal line, nothing over the app (no half-drawn
    /// or stale splash), and the overlay carries on.
    @Test(.enabled(if: Overlay.available(swayTools)), .timeLimit(.minutes(2)))
    func clearsWhenTheSceneDoesNotLoad() async throws {
        try #require(
            Overlay.missing(Self.swayTools).isEmpty,
            "missing \(Overlay.missing(Self.swayTools)) (make setup installs them)"
        )
        let compositor = try await Compositor.sway()
        let daemon = try await Daemon(compositor: compositor, external: true)
        let bad = daemon.directory.appendingPathComponent("broken.scene.json")
        try "{\"name\": \"broken\", \"layers\": [".write(to: bad, atomically: true, encoding: .utf8)
        let overlay = try await startOverlay(compositor, daemon, arguments: ["--scene", bad.path])
        defer { Overlay.killTree(overlay.pid) }
        #expect(await overlay.waitFor("on the overlay layer", within: Overlay.timeout), "\(overlay.output)")
        #expect(try await daemon.ctl("launch", "--normal", "shop").status == 0)
        #expect(
            await overlay.waitFor(
                "<3>curtain-overlay: launch 1: the scene does not load: \(bad.path)",
                within: Overlay.timeout
            ),
            "\(overlay.output)"
        )
        let shots = TestEnvironment.temporaryDirectory("overlay-shots")
        defer { try? FileManager.default.removeItem(at: shots) }
        let screen = try await compositor.screenshot(shots)
        #expect(Self.splashFraction(screen) < 0.01, "nothing covers the screen")
        #expect(overlay.output.contains("clearing the overlay, trying again in"), "\(overlay.output)")
    }

    /// Weston has no layer-shell: a fullscreen xdg_toplevel, said in the log, shows the splash.
    @Test(.enabled(if: Overlay.available(westonTools)), .timeLimit(.minutes(2)))
    func fullscreenToplevelOnWeston() async throws {
        try #require(
            Overlay.missing(Self.westonTools).isEmpty,
            "missing \(Overlay.missing(Self.westonTools)) (make setup installs them)"
        )
        let compositor = try await Compositor.weston()
        let daemon = try await Daemon(compositor: compositor, external: true)
        let overlay = try await startOverlay(compositor, daemon)
        defer { Overlay.killTree(overlay.pid) }
        #expect(
            await overlay.waitFor("falling back to a fullscreen xdg_toplevel", within: Overlay.timeout),
            "\(overlay.output)"
        )
        #expect(await overlay.waitFor("(fullscreen toplevel)", within: Overlay.timeout), "\(overlay.output)")
        #expect(try await daemon.ctl("launch", "--normal", "shop").status == 0)
        let shots = TestEnvironment.temporaryDirectory("overlay-shots")
        defer { try? FileManager.default.removeItem(at: shots) }
        var screen: Screen? = nil
        #expect(
            try await Overlay.eventually {
                screen = try await compositor.screenshot(shots, weston: true)
                return Self.splashFraction(screen!) > 0.95
            },
            "the splash fills weston's output: \(screen.map { "\(Self.splashFraction($0)) in \($0.path)" } ?? "") \(overlay.output)"
        )
    }
}
