import CCairo
import CurtainCore
import Testing

@testable import CurtainRender

#if canImport(Glibc)
import Glibc
#endif

extension RenderSuites {  // run one test at a time: RenderSuites.swift (left unindented)
    /// The cache and the damaged-region repaint must draw what a full, uncached repaint draws:
    /// every 30 Hz frame of seed 000's appear and reveal, drawn incrementally into one kept frame
    /// by a caching renderer, against a fresh full render by a renderer without cache, within the
    /// goldens' tolerance (each premultiplied channel within 2/255, at most 250 pixels beyond).
    @Suite struct IncrementalRenderTests {
        static let scene = YulaRenderTests.repository + "/scenes/yula/yula.scene.json"
        static let width = 375, height = 667

        func frames(_ name: String) throws -> [[String: Value]] {
            let timeline = try Timeline(document: Presets.document(named: name)!)
            let count = Int((timeline.duration * 30).rounded(.up)) + 1
            return (0..<count).map {
                timeline.keyedValues(timeline.evaluate(at: min(Double($0) / 30, timeline.duration)))
            }
        }

        /// Pixels beyond the tolerance, and the worst channel difference.
        func difference(_ a: Image, _ b: Image) -> (beyond: Int, worst: UInt32) {
            var beyond = 0
            var worst: UInt32 = 0
            for (p, q) in zip(a.pixels, b.pixels) where p != q {
                var d: UInt32 = 0
                for shift in stride(from: 0, to: 32, by: 8) {
                    let x = (p >> UInt32(shift)) & 0xFF
                    let y = (q >> UInt32(shift)) & 0xFF
                    d = max(d, x > y ? x - y : y - x)
                }
                worst = max(worst, d)
                if d > YulaRenderTests.tolerance { beyond += 1 }
            }
            return (beyond, worst)
        }

        @Test(arguments: ["yula-appear", "yula-mask-reveal"])
        func incrementalAndCachedMatchAFullUncachedRender(transition: String) throws {
            let reference = try SceneRenderer(sceneFile: Self.scene, cacheBytes: 0)
            let renderer = try SceneRenderer(sceneFile: Self.scene)
            let kept = try renderer.makeFrame(width: Self.width, height: Self.height)
            var previous: [String: Value]? = nil
            var partial = 0
            // Twice through: the second pass draws the static layers from the cache.
            for values in try frames(transition) + frames(transition) {
                let damage = try renderer.render(values: values, into: kept, previous: previous)
                if let damage, damage.area < Self.width * Self.height { partial += 1 }
                previous = values
                let full = try reference.render(values: values, width: Self.width, height: Self.height)
                let d = difference(kept, full)
                #expect(
                    d.beyond <= YulaRenderTests.edgeAllowance,
                    "\(transition): \(d.beyond) pixels beyond ±2 (worst \(d.worst)), damage \(String(describing: damage))"
                )
            }
            #expect(partial > 0, "some frames repaint less than the whole frame")
            #expect(renderer.cache.isCached("backdrop"), "the static backdrop is cached")
            #expect(reference.cache.cachedLayers == 0)
        }

        /// The same values twice: nothing to repaint. The appear's first frames change only the
        /// logo and the text, well inside the frame.
        @Test func damageIsTheChangedRegion() throws {
            let renderer = try SceneRenderer(sceneFile: Self.scene)
            let kept = try renderer.makeFrame(width: Self.width, height: Self.height)
            let appear = try frames("yula-appear")
            #expect(
                try renderer.render(values: appear[1], into: kept, previous: nil)
                    == PixelRect(x: 0, y: 0, width: Self.width, height: Self.height)
            )
            #expect(try renderer.render(values: appear[1], into: kept, previous: appear[1]) == nil)
            let damage = try #require(try renderer.render(values: appear[2], into: kept, previous: appear[1]))
            #expect(damage.area < Self.width * Self.height / 4, "\(damage)")
            // The logo at the centre and the text below it are inside.
            #expect(damage.intersection(PixelRect(x: Self.width / 2, y: Self.height / 2, width: 1, height: 1)) != nil)
            #expect(
                damage.intersection(PixelRect(x: Self.width / 2, y: Self.height / 2 + 100, width: 1, height: 1)) != nil
            )
        }

        /// The cache's budget: the full-frame backdrop (375 × 667 × 4 bytes) is cached with a
        /// budget of exactly that, and not with one byte less; pixels are the same either way.
        @Test func cacheBudgetAtTheBoundary() throws {
            let bytes = Self.width * Self.height * 4
            let values = try frames("yula-mask-reveal")[10]
            var images: [Image] = []
            for (budget, cached) in [(bytes, true), (bytes - 1, false)] {
                let renderer = try SceneRenderer(sceneFile: Self.scene, cacheBytes: budget)
                _ = try renderer.render(values: values, width: Self.width, height: Self.height)
                images.append(try renderer.render(values: values, width: Self.width, height: Self.height))
                #expect(renderer.cache.isCached("backdrop") == cached, "budget \(budget)")
                #expect(renderer.cache.bytes <= budget)
            }
            #expect(difference(images[0], images[1]).beyond == 0)
        }

        /// A previous screen: black left half, white right half (sharp: blur shows).
        static func halves(_ width: Int, _ height: Int, left: (Double, Double, Double) = (0, 0, 0)) -> Image {
            let image = Image(width: width, height: height)
            let cr = cairo_create(image.surface)!
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            cairo_set_source_rgb(cr, left.0, left.1, left.2)
            cairo_rectangle(cr, 0, 0, Double(width / 2), Double(height))
            cairo_fill(cr)
            cairo_destroy(cr)
            return image
        }

        /// Effects under the cache and the damaged-region repaint: seeds 001 (slide, flip: the
        /// presenter turned in 3-D), 003 (the blurred retained previous screen) and 004 (hero),
        /// every 5 Hz frame twice through, drawn incrementally by a caching renderer, match a full
        /// uncached render (small frames: blur is slow in debug builds).
        @Test(arguments: [("slide", "slide"), ("slide", "flip"), ("panel-blur", "panel-blur"), ("hero", "hero")])
        func effectsMatchAFullUncachedRender(scene: String, transition: String) throws {
            let width = 120
            let height = 214
            let path = "\(SeedRenderTests.scenes)/\(scene)/\(scene).scene.json"
            let reference = try SceneRenderer(sceneFile: path, cacheBytes: 0)
            let renderer = try SceneRenderer(sceneFile: path)
            let document =
                transition == "hero"
                ? Hero.document(
                    from: Hero.elements(in: try renderer.scene(width: width, height: height)),
                    to: ["logo": Hero.Element(Hero.Frame(x: 8, y: 16, width: 24, height: 24))]
                )
                : Presets.document(named: transition)!
            let timeline = try Timeline(document: document)
            let screen = scene == "panel-blur" ? Self.halves(width, height) : nil
            let count = Int((timeline.duration * 5).rounded(.up)) + 1
            let frames = (0..<count).map {
                timeline.keyedValues(timeline.evaluate(at: min(Double($0) / 5, timeline.duration)))
            }
            let kept = try renderer.makeFrame(width: width, height: height)
            var previous: [String: Value]? = nil
            for (i, values) in (frames + frames).enumerated() {
                let damage = try renderer.render(values: values, into: kept, previous: previous, previousScreen: screen)
                previous = values
                let full = try reference.render(values: values, width: width, height: height, previousScreen: screen)
                let d = difference(kept, full)
                #expect(
                    d.beyond <= YulaRenderTests.edgeAllowance / 4,
                    "\(transition) frame \(i): \(d.beyond) pixels beyond ±2 (worst \(d.worst)), damage \(String(describing: damage))"
                )
            }
        }

        /// Blur and perspective paint beyond a layer's affine bounds (a halo of about 3σ; the near
        /// edge of a turned layer grows): a blurred dot that moves away and a card that turns back
        /// flat leave nothing behind, and a blurred layer's sublayer that changes repaints the blur.
        @Test func effectsRepaintBeyondTheirBounds() throws {
            let path = "/tmp/curtain-effects-\(getpid()).scene.json"
            defer { unlink(path) }
            let json = """
                {"name": "effects", "layers": [
                  {"id": "ground", "bounds": [0, 0, 100, 100], "position": [50, 50], "backgroundColor": "#ffffff"},
                  {"id": "dot", "bounds": [0, 0, 12, 12], "position": [25, 25], "backgroundColor": "#ff0000",
                   "sublayers": [{"id": "pip", "bounds": [0, 0, 4, 4], "position": [6, 6], "backgroundColor": "#0000ff"}]},
                  {"id": "card", "bounds": [0, 0, 30, 30], "position": [65, 65], "backgroundColor": "#00aa00"}
                ]}
                """
            let file = fopen(path, "w")!
            fputs(json, file)
            fclose(file)
            let renderer = try SceneRenderer(sceneFile: path)
            let reference = try SceneRenderer(sceneFile: path, cacheBytes: 0)
            func frame(dot: Double, pip: Double, turn: Double) -> [String: Value] {
                [
                    "dot.position": .point(x: dot, y: 25), "dot.blurRadius": .scalar(4),
                    "pip.position": .point(x: pip, y: 6),
                    "card.rotationY": .scalar(turn), "card.m34": .scalar(-1.0 / 40),
                ]
            }
            let frames = [
                frame(dot: 25, pip: 6, turn: 1.0), frame(dot: 75, pip: 6, turn: 0), frame(dot: 75, pip: 3, turn: 0),
            ]
            let kept = try renderer.makeFrame(width: 100, height: 100)
            var previous: [String: Value]? = nil
            for (i, values) in frames.enumerated() {
                try renderer.render(values: values, into: kept, previous: previous)
                previous = values
                let d = difference(kept, try reference.render(values: values, width: 100, height: 100))
                #expect(d.beyond == 0, "frame \(i): \(d.beyond) pixels beyond ±2 (worst \(d.worst))")
            }
        }

        /// The retained layer shows the previous screen: given another one, an incremental frame
        /// with unchanged values repaints everything (same values, same screen: nothing).
        @Test func anotherPreviousScreenRepaintsAll() throws {
            let width = 60
            let height = 100
            let renderer = try SceneRenderer(sceneFile: "\(SeedRenderTests.scenes)/panel-blur/panel-blur.scene.json")
            let timeline = try Timeline(document: Presets.document(named: "panel-blur")!)
            let values = timeline.keyedValues(timeline.evaluate(at: timeline.duration / 2))
            let black = Self.halves(width, height)
            let red = Self.halves(width, height, left: (1, 0, 0))
            let kept = try renderer.makeFrame(width: width, height: height)
            try renderer.render(values: values, into: kept, previous: nil, previousScreen: black)
            #expect(try renderer.render(values: values, into: kept, previous: values, previousScreen: black) == nil)
            #expect(
                try renderer.render(values: values, into: kept, previous: values, previousScreen: red)
                    == PixelRect(x: 0, y: 0, width: width, height: height)
            )
            let full = try SceneRenderer(sceneFile: renderer.path, cacheBytes: 0).render(
                values: values,
                width: width,
                height: height,
                previousScreen: red
            )
            #expect(difference(kept, full).beyond == 0)
        }
    }
}

extension RenderSuites {  // run one test at a time: RenderSuites.swift (left unindented)
    /// `destinationImage`: a stand-in app screenshot below the overlay, scaled to fill the frame.
    @Suite struct DestinationImageTests {
        @Test func screenshotShowsInsideTheHole() throws {
            let renderer = try SceneRenderer(sceneFile: IncrementalRenderTests.scene)
            // A 10×20 "screenshot": left half red, right half blue; at 375×667 it is scaled 37.5×.
            let shot = try renderer.makeFrame(width: 10, height: 20)
            let cr = cairo_create(shot.surface)!
            cairo_set_source_rgb(cr, 1, 0, 0)
            cairo_rectangle(cr, 0, 0, 5, 20)
            cairo_fill(cr)
            cairo_set_source_rgb(cr, 0, 0, 1)
            cairo_rectangle(cr, 5, 0, 5, 20)
            cairo_fill(cr)
            cairo_destroy(cr)
            let reveal = try Timeline(document: Presets.document(named: "yula-mask-reveal")!)
            let last = try renderer.render(
                values: reveal.keyedValues(reveal.evaluate(at: 0.6)),
                width: 375,
                height: 667,
                destinationImage: shot
            )
            #expect(last.argb(20, 333) == 0xFFFF_0000 && last.argb(355, 333) == 0xFF00_00FF)
            // Mid-reveal the corner is still the overlay's backdrop, not the screenshot.
            let mid = try renderer.render(
                values: reveal.keyedValues(reveal.evaluate(at: 0.2)),
                width: 375,
                height: 667,
                destinationImage: shot
            )
            #expect(mid.argb(0, 0) != 0xFFFF_0000)
        }

        /// A screenshot file is refused like a scene's image beyond the dimension limit.
        @Test func screenshotLimits() throws {
            let path = "/tmp/curtain-shot-\(getpid()).png"
            defer { unlink(path) }
            try Image(width: 8192, height: 1).writePNG(to: path)
            #expect(try Image.loadPNG(path).width == 8192)
            try Image(width: 8193, height: 1).writePNG(to: path)
            #expect(throws: RenderError("\(path): is 8193 × 1 pixels, more than the limit of 8192 × 8192")) {
                try Image.loadPNG(path)
            }
        }
    }
}
