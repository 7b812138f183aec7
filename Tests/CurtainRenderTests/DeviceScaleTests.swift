import CurtainCore
import Testing

@testable import CurtainRender

extension RenderSuites {  // run one test at a time: RenderSuites.swift (left unindented)
    /// Drawing at a device scale (a HiDPI output's wl_output.scale): the scene is laid out in
    /// points and drawn N times larger, and the damaged-region repaint and the layer cache work
    /// in the device pixels drawn.
    @Suite struct DeviceScaleTests {
        /// Small, so a debug build draws the scale-2 frames quickly; seed 000's 88-point logo fits.
        static let width = 200, height = 360

        func reveal() throws -> Timeline {
            try Timeline(
                document: Presets.document(named: "yula-mask-reveal")!,
                parameters: ["screen.width": Double(Self.width), "screen.height": Double(Self.height)]
            )
        }

        /// The columns holding the app's colour (the hole), first to last, in an image drawn over it.
        func holeColumns(_ image: Image) -> ClosedRange<Int>? {
            var columns: [Int] = []
            for x in 0..<image.width where (0..<image.height).contains(where: { image.argb(x, $0) == 0xFF2E_CC71 }) {
                columns.append(x)
            }
            return columns.first.map { $0...columns.last! }
        }

        /// Every 15 Hz frame of seed 000's reveal drawn incrementally at scale 2 into one kept
        /// frame by a caching renderer matches a fresh full render at scale 2 by one without
        /// cache (the goldens' tolerance). Damage computed in points rather than device pixels
        /// would leave half of each changed region stale.
        @Test func incrementalAtScale2MatchesAFullUncachedRender() throws {
            let timeline = try reveal()
            let reference = try SceneRenderer(sceneFile: IncrementalRenderTests.scene, cacheBytes: 0)
            let renderer = try SceneRenderer(sceneFile: IncrementalRenderTests.scene)
            let kept = try renderer.makeFrame(width: Self.width * 2, height: Self.height * 2)
            var previous: [String: Value]? = nil
            var partial = 0
            let count = Int((timeline.duration * 15).rounded(.up))
            for i in 0...count {
                let values = timeline.keyedValues(timeline.evaluate(at: min(Double(i) / 15, timeline.duration)))
                let damage = try renderer.render(values: values, into: kept, previous: previous, scale: 2)
                if let damage, damage.area < kept.width * kept.height { partial += 1 }
                previous = values
                let full = try reference.render(values: values, width: Self.width, height: Self.height, scale: 2)
                #expect(full.width == Self.width * 2 && full.height == Self.height * 2)
                let d = IncrementalRenderTests().difference(kept, full)
                #expect(
                    d.beyond <= YulaRenderTests.edgeAllowance,
                    "frame \(i): \(d.beyond) pixels beyond ±2 (worst \(d.worst)), damage \(String(describing: damage))"
                )
            }
            #expect(partial > 0, "some frames repaint less than the whole frame")
            #expect(renderer.cache.isCached("backdrop"), "the static backdrop is cached at scale 2")
        }

        /// curtain-overlay's buffer age: two frame buffers drawn in turn, each repainted from
        /// the frame it holds (the frame before last), match a full uncached render at every
        /// frame, and `damage(from:to:)` — what the overlay reports to the compositor — is
        /// exactly what a repaint from the previous frame covers.
        @Test func twoBuffersInTurnAndTheFrameDamage() throws {
            let timeline = try reveal()
            let reference = try SceneRenderer(sceneFile: IncrementalRenderTests.scene, cacheBytes: 0)
            let renderer = try SceneRenderer(sceneFile: IncrementalRenderTests.scene)
            let (width, height) = (Self.width * 2, Self.height * 2)
            let buffers = try [
                renderer.makeFrame(width: width, height: height), renderer.makeFrame(width: width, height: height),
            ]
            var held: [[String: Value]?] = [nil, nil]
            let probe = try renderer.makeFrame(width: width, height: height)
            var last: [String: Value]? = nil
            let count = Int((timeline.duration * 15).rounded(.up))
            for i in 0...count {
                let values = timeline.keyedValues(timeline.evaluate(at: min(Double(i) / 15, timeline.duration)))
                try renderer.render(values: values, into: buffers[i % 2], previous: held[i % 2], scale: 2)
                held[i % 2] = values
                let full = try reference.render(values: values, width: Self.width, height: Self.height, scale: 2)
                let d = IncrementalRenderTests().difference(buffers[i % 2], full)
                #expect(d.beyond <= YulaRenderTests.edgeAllowance, "frame \(i): \(d.beyond) pixels beyond ±2")
                if let last {
                    let damage = try renderer.damage(from: last, to: values, width: width, height: height, scale: 2)
                    try renderer.render(values: last, into: probe, previous: nil, scale: 2)
                    let repainted = try renderer.render(values: values, into: probe, previous: last, scale: 2)
                    #expect(damage == repainted, "frame \(i)")
                }
                last = values
            }
        }

        /// Seed 003's panel at scale 2: the layers under the opaque panel are drawn around its
        /// interior, a box in device pixels; every 5 Hz frame drawn incrementally matches a full
        /// uncached render. The interior computed in points (half the size, in the wrong place)
        /// leaves the backdrop undrawn where the panel is not.
        @Test func panelInteriorAtScale2MatchesAFullUncachedRender() throws {
            let (width, height) = (120, 214)
            let path = "\(SeedRenderTests.scenes)/panel-blur/panel-blur.scene.json"
            let reference = try SceneRenderer(sceneFile: path, cacheBytes: 0)
            let renderer = try SceneRenderer(sceneFile: path)
            let timeline = try Timeline(document: Presets.document(named: "panel-blur")!)
            let screen = IncrementalRenderTests.halves(width * 2, height * 2)
            let kept = try renderer.makeFrame(width: width * 2, height: height * 2)
            var previous: [String: Value]? = nil
            let count = Int((timeline.duration * 5).rounded(.up)) + 1
            for i in 0..<count {
                let values = timeline.keyedValues(timeline.evaluate(at: min(Double(i) / 5, timeline.duration)))
                try renderer.render(values: values, into: kept, previous: previous, scale: 2, previousScreen: screen)
                previous = values
                let full = try reference.render(
                    values: values,
                    width: width,
                    height: height,
                    scale: 2,
                    previousScreen: screen
                )
                let d = IncrementalRenderTests().difference(kept, full)
                #expect(d.beyond <= YulaRenderTests.edgeAllowance / 4, "frame \(i): \(d.beyond) pixels beyond ±2")
            }
        }

        /// The layout is in points: mid-reveal, the logo-shaped hole is twice as wide in pixels at
        /// scale 2 as at scale 1 and in the same place (its columns doubled), not the scene laid
        /// out anew for a screen twice the size.
        @Test func scale2DrawsTheSameLayoutTwiceAsLarge() throws {
            let timeline = try reveal()
            let renderer = try SceneRenderer(sceneFile: IncrementalRenderTests.scene)
            let values = timeline.keyedValues(timeline.evaluate(at: 0.2))
            let app = YulaRenderTests.app
            let one = try renderer.render(values: values, width: Self.width, height: Self.height, destination: app)
            let two = try renderer.render(
                values: values,
                width: Self.width,
                height: Self.height,
                scale: 2,
                destination: app
            )
            let a = try #require(holeColumns(one), "a hole at scale 1")
            let b = try #require(holeColumns(two), "a hole at scale 2")
            #expect(a.count > 10, "a real hole: \(a)")
            #expect(abs(b.count - 2 * a.count) <= 2, "hole \(a.count) px wide at scale 1, \(b.count) at scale 2")
            #expect(abs(b.lowerBound - 2 * a.lowerBound) <= 2, "hole at \(a) at scale 1, \(b) at scale 2")
        }

        /// The pixels are limited, not the points: 4096 points at scale 2 are 8192 pixels (the
        /// limit), 4097 are too many; a scale below 1, or one that does not divide a frame's
        /// sides, is refused.
        @Test func scaleLimits() throws {
            let renderer = try SceneRenderer(sceneFile: IncrementalRenderTests.scene)
            #expect(try renderer.render(values: [:], width: 4096, height: 1, scale: 2).width == 8192)
            #expect(
                throws: RenderError(
                    "4097×1 points at scale 2 is 8194×2 pixels, outside 1…8192 in each dimension"
                )
            ) { try renderer.render(values: [:], width: 4097, height: 1, scale: 2) }
            #expect(throws: RenderError("scale 0: a scale is a whole number of pixels a point, 1 or more")) {
                try renderer.render(values: [:], width: 10, height: 10, scale: 0)
            }
            let odd = try renderer.makeFrame(width: 5, height: 4)
            #expect(
                throws: RenderError(
                    "a 5×4 frame cannot be drawn at scale 2: the scale is a whole number of pixels a point that divides both sides"
                )
            ) { try renderer.render(values: [:], into: odd, previous: nil, scale: 2) }
        }
    }
}
