import CCairo
import CPixelLoops
import CurtainCore
import Testing

@testable import CurtainRender

#if canImport(Glibc)
import Glibc
#endif

extension RenderSuites {  // run one test at a time: RenderSuites.swift (left unindented)
    /// What makes a 1080p frame fit in 4 ms (BENCHMARKS.md, "Rendering a frame"): the small
    /// blurs by 3-tap passes, the blurred image kept per σ (opacity applied as it composites),
    /// the layers under an opaquely cleared destination drawn around it.
    @Suite struct FrameCostTests {
        /// A renderer of the scene document `json` (written to a temporary file, read, removed).
        static func renderer(_ json: String, cacheBytes: Int = SceneRenderer.Limits.cacheBytes) throws -> SceneRenderer
        {
            let path = "/tmp/curtain-frame-cost-\(getpid())-\(json.hashValue).scene.json"
            defer { unlink(path) }
            let file = fopen(path, "w")!
            fputs(json, file)
            fclose(file)
            return try SceneRenderer(sceneFile: path, cacheBytes: cacheBytes)
        }

        /// The largest difference of one premultiplied channel between two images of one size.
        static func worstDifference(_ a: Image, _ b: Image) -> UInt32 {
            var worst: UInt32 = 0
            for (p, q) in zip(a.pixels, b.pixels) where p != q {
                for shift: UInt32 in [0, 8, 16, 24] {
                    let x = (p >> shift) & 0xFF
                    let y = (q >> shift) & 0xFF
                    worst = max(worst, x > y ? x - y : y - x)
                }
            }
            return worst
        }

        /// A single opaque white pixel in a black image, blurred: the variance of the spread
        /// (per axis) is the one asked for, by 3-tap passes at and below `Blur.tapVariance`, by
        /// boxes above it.
        @Test(arguments: [0.05, 0.3, Blur.tapPassVariance, 0.77, Blur.tapVariance, Blur.tapVariance.nextUp, 6.0])
        func blurSpreadsByTheVarianceAskedFor(variance: Double) throws {
            let size = 41
            let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size), Int32(size))!
            defer { cairo_surface_destroy(surface) }
            let cr = cairo_create(surface)!
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_rectangle(cr, Double(size / 2), Double(size / 2), 1, 1)
            cairo_fill(cr)
            cairo_destroy(cr)
            #expect((Blur.tapPasses(variance: variance) != nil) == (variance <= Blur.tapVariance))
            Blur.gaussian(surface, sigma: variance.squareRoot())
            let data = UnsafeMutableRawPointer(cairo_image_surface_get_data(surface)!)
            let stride = Int(cairo_image_surface_get_stride(surface)) / 4
            let pixels = data.bindMemory(to: UInt32.self, capacity: stride * size)
            var total = 0.0
            var moment = 0.0
            for y in 0..<size {
                for x in 0..<size {
                    let green = Double((pixels[y * stride + x] >> 8) & 0xFF)
                    total += green
                    moment += green * Double((x - size / 2) * (x - size / 2))
                }
            }
            let measured = moment / total
            // Weights in 1/256ths and 8-bit rounding; the three boxes approximate σ² within 8 %.
            #expect(abs(measured - variance) < max(0.04, variance * 0.08), "variance \(variance): \(measured)")
        }

        /// The kept blurred image depends on the kernel σ gives alone (box widths or 3-tap
        /// weights: the opacity applies as it composites): the same kernel reuses it, another
        /// kernel makes a new one.
        @Test func blurredImageIsKeptPerSigma() throws {
            let key = BlurredLayer.Key(
                presentations: [],
                matrix: Affine(),
                screen: nil,
                textVariant: 0,
                width: 64,
                height: 48
            )
            let layer = BlurredLayer(key: key, retaining: nil) { cr in
                cairo_set_source_rgb(cr, 1, 0.5, 0)
                cairo_rectangle(cr, 10, 10, 20, 20)
                cairo_fill(cr)
            }
            let a = layer.frame(sigma: 4)
            let b = layer.frame(sigma: 4)
            #expect(a.factor == 4 && a.surface == b.surface && layer.blurredImages == 1)
            _ = layer.frame(sigma: 5)
            #expect(Blur.kernel(sigma: Blur.plan(sigma: 5).sigma) != Blur.kernel(sigma: Blur.plan(sigma: 4).sigma))
            #expect(layer.blurredImages == 2)
            // σ 20 and 20.05 give the same three boxes at ⅛ size: the same pixels, kept.
            #expect(Blur.kernel(sigma: Blur.plan(sigma: 20).sigma) == Blur.kernel(sigma: Blur.plan(sigma: 20.05).sigma))
            let e = layer.frame(sigma: 20)
            #expect(e.factor == 8 && layer.blurredImages == 3)
            #expect(layer.frame(sigma: 20.05).surface == e.surface && layer.blurredImages == 3)
            // The layer keeps only its last blurred image: `a.surface` went with σ 20's.
            let blurredAgain = layer.frame(sigma: 4)
            #expect(layer.blurredImages == 4)
            // Blurred again at the same size, into the same pixels: as blurred from scratch.
            let again = Image(
                width: Int(cairo_image_surface_get_width(blurredAgain.surface)),
                height: Int(cairo_image_surface_get_height(blurredAgain.surface))
            )
            let copy = cairo_create(again.surface)!
            cairo_set_source_surface(copy, layer.level(2), 0, 0)
            cairo_set_operator(copy, CAIRO_OPERATOR_SOURCE)
            cairo_paint(copy)
            cairo_destroy(copy)
            Blur.gaussian(again.surface, sigma: Blur.plan(sigma: 4).sigma)
            cairo_surface_flush(again.surface)
            let reused = Image(width: again.width, height: again.height)
            let into = cairo_create(reused.surface)!
            cairo_set_source_surface(into, layer.frame(sigma: 4).surface, 0, 0)
            cairo_set_operator(into, CAIRO_OPERATOR_SOURCE)
            cairo_paint(into)
            cairo_destroy(into)
            #expect(reused.pixels == again.pixels)
            // σ below the reduction's own softening: the reduction itself, not blurred.
            let d = layer.frame(sigma: Blur.inherentSigma(2))
            #expect(d.factor == 2 && d.surface == layer.level(1))
        }

        /// A panel (a destination with rounded corners, opacity 1) clears whole pixels inside
        /// its frame: the rows between its corners, rounded inwards. Not with a mask showing,
        /// below opacity 1, or turned.
        @Test func clearedInteriorOfARoundedPanel() throws {
            let json = """
                {"name": "panel", "layers": [
                  {"id": "ground", "bounds": [0, 0, 100, 100], "position": [50, 50], "backgroundColor": "#ffffff"},
                  {"id": "panel", "role": "destination", "bounds": [0, 0, 80, 60], "position": [50.5, 60.25],
                   "cornerRadius": 10, "mask": {"layer": "hole"}},
                  {"id": "hole", "bounds": [0, 0, 10, 10], "position": [5, 5], "backgroundColor": "#000000"}
                ]}
                """
            let renderer = try Self.renderer(json)
            let (scene, index) = try renderer.resolve(width: 100, height: 100)
            func interior(_ values: [String: Value]) -> PixelRect? {
                SceneRenderer.clearedInterior(scene.layers, from: 0, values: values, index: index)?.rect
            }
            // Frame 10.5…90.5 × 30.25…90.25; corners 10 high.
            let shown: [String: Value] = ["hole.hidden": .scalar(1)]
            #expect(interior(shown) == PixelRect(x: 11, y: 41, width: 79, height: 39))
            #expect(interior([:]) == nil)  // its mask shows
            #expect(interior(shown.merging(["panel.opacity": .scalar(0.99)]) { $1 }) == nil)
            #expect(interior(shown.merging(["panel.rotation": .scalar(0.1)]) { $1 }) == nil)
            #expect(SceneRenderer.clearedInterior(scene.layers, from: 2, values: shown, index: index) == nil)

            // Drawn incrementally (the ground kept from the last frame outside the panel), the
            // frame is an uncached full render's, as the panel moves.
            let reference = try Self.renderer(json, cacheBytes: 0)
            let kept = try renderer.makeFrame(width: 100, height: 100)
            var previous: [String: Value]? = nil
            for y in [60.25, 55.5, 40.0, 75.75] {
                let values = shown.merging(["panel.position": .point(x: 50.5, y: y)]) { $1 }
                try renderer.render(values: values, into: kept, previous: previous)
                previous = values
                let full = try reference.render(values: values, width: 100, height: 100)
                #expect(kept.pixels == full.pixels, "panel at y \(y)")
            }
        }

        /// A destination's one plain sublayer (seed 000's fading logo under the hole) is drawn
        /// opaque with its opacity folded into the hole's alpha: the same pixels (within
        /// rounding, 1/255) as the general path, which a second sublayer — visible, but off the
        /// frame — forces.
        @Test(arguments: [1.0, 0.5, 0.07])
        func aLoneSublayersOpacityFoldsIntoTheHole(opacity: Double) throws {
            func scene(extra: String) -> String {
                """
                {"name": "fold", "layers": [
                  {"id": "ground", "bounds": [0, 0, 100, 100], "position": [50, 50], "backgroundColor": "#204080"},
                  {"id": "window", "role": "destination", "bounds": [0, 0, 100, 100], "position": [50, 50],
                   "mask": {"layer": "hole"}, "sublayers": [
                     {"id": "fading", "bounds": [0, 0, 50, 40], "position": [47.3, 52.6], "cornerRadius": 9,
                      "backgroundColor": "#f0c030"}\(extra)]},
                  {"id": "hole", "bounds": [0, 0, 60, 60], "position": [50, 50], "cornerRadius": 20,
                   "backgroundColor": "#000000"}
                ]}
                """
            }
            func render(_ json: String, opacity: Double = opacity) throws -> Image {
                let values: [String: Value] = [
                    "fading.opacity": .scalar(opacity), "window.scale": .scalar(1.05), "hole.rotation": .scalar(0.3),
                ]
                return try Self.renderer(json, cacheBytes: 0).render(values: values, width: 100, height: 100)
            }
            let folded = try render(scene(extra: ""))
            let general = try render(
                scene(
                    extra:
                        ##", {"id": "far", "bounds": [0, 0, 4, 4], "position": [-500, -500], "backgroundColor": "#ffffff"}"##
                )
            )
            let without = try render(scene(extra: ""), opacity: 0)
            let covered = zip(folded.pixels, without.pixels).filter { $0 != $1 }.count
            let worst = Self.worstDifference(folded, general)
            #expect(worst <= 1, "opacity \(opacity): pixels differ by up to \(worst)/255")
            #expect(covered > 500, "the sublayer shows in the hole (\(covered) pixels)")
        }

        /// A mask's alpha times an opacity is made by copying the mask and scaling it in place
        /// (`Painter.alphaTimes`), not by painting it with alpha into a clear group (pixman's slow
        /// path): a masked layer at an opacity shows its colour times the opacity inside the mask
        /// and nothing outside; a masked destination at an opacity clears what is below it by
        /// that opacity inside the mask and leaves it outside.
        @Test(arguments: [1.0, 0.5, 0.07])
        func aMasksAlphaTimesAnOpacity(opacity: Double) throws {
            let json = """
                {"name": "fade", "layers": [
                  {"id": "ground", "bounds": [0, 0, 100, 100], "position": [50, 150], "backgroundColor": "#204080"},
                  {"id": "window", "role": "destination", "bounds": [0, 0, 100, 100], "position": [50, 150],
                   "mask": {"layer": "hole"}},
                  {"id": "hole", "bounds": [0, 0, 60, 60], "position": [50, 50], "backgroundColor": "#000000"},
                  {"id": "card", "bounds": [0, 0, 100, 100], "position": [50, 50], "backgroundColor": "#f0c030",
                   "mask": {"layer": "shape"}},
                  {"id": "shape", "bounds": [0, 0, 60, 60], "position": [50, 50], "backgroundColor": "#000000"}
                ]}
                """
            let values: [String: Value] = ["card.opacity": .scalar(opacity), "window.opacity": .scalar(opacity)]
            let image = try Self.renderer(json, cacheBytes: 0).render(
                values: values,
                width: 100,
                height: 200
            )
            func pixel(_ x: Int, _ y: Int) -> [Int] {
                let p = image.pixels[y * image.width + x]
                return [24, 16, 8, 0].map { Int((p >> UInt32($0)) & 0xFF) }  // A, R, G, B premultiplied
            }
            func expect(_ x: Int, _ y: Int, _ argb: [Double], _ what: String) {
                let want = argb.map { Int(($0 * 255).rounded()) }
                let got = pixel(x, y)
                #expect(
                    zip(got, want).allSatisfy { abs($0 - $1) <= 1 },
                    "opacity \(opacity), \(what): \(got), expected \(want)"
                )
            }
            let card: [Double] = [1, 0xf0 / 255.0, 0xc0 / 255.0, 0x30 / 255.0].map { $0 * opacity }
            expect(50, 50, card, "the card inside its mask")
            expect(5, 5, [0, 0, 0, 0], "the card outside its mask")
            let kept = 1 - opacity
            expect(
                50,
                150,
                [kept, 0x20 / 255.0 * kept, 0x40 / 255.0 * kept, 0x80 / 255.0 * kept],
                "the ground in the hole"
            )
            expect(5, 105, [1, 0x20 / 255.0, 0x40 / 255.0, 0x80 / 255.0], "the ground outside the hole")
        }

        /// A blurred layer at an opacity straight over an opaque colour covering the frame is
        /// faded onto that colour before it is enlarged (drawn opaque, copied rather than
        /// blended): the same pixels as when something else is below it (a base that is not a
        /// plain colour takes the general path), and the analytic colour.
        @Test func aFadedBlurOverAnOpaqueColourIsFlattened() throws {
            func scene(baseSublayers: String) -> String {
                """
                {"name": "veil", "layers": [
                  {"id": "base", "bounds": [0, 0, 64, 64], "position": [32, 32], "backgroundColor": "#102030"\(baseSublayers)},
                  {"id": "veil", "bounds": [0, 0, 64, 64], "position": [32, 32], "backgroundColor": "#f0c030"}
                ]}
                """
            }
            func render(_ json: String) throws -> (Image, Bool?) {
                let renderer = try Self.renderer(json)
                let values: [String: Value] = ["veil.blurRadius": .scalar(6), "veil.opacity": .scalar(0.4)]
                let image = try renderer.render(values: values, width: 64, height: 64)
                return (image, renderer.cache.blurredLayer("veil")?.flattened)
            }
            let (flat, flattened) = try render(scene(baseSublayers: ""))
            // A sublayer off the frame: the base is no longer a plain colour.
            let (general, notFlattened) = try render(
                scene(
                    baseSublayers:
                        ##", "sublayers": [{"id": "far", "bounds": [0, 0, 2, 2], "position": [-50, -50], "backgroundColor": "#ffffff"}]"##
                )
            )
            #expect(flattened == true)
            #expect(notFlattened == false)
            let worst = Self.worstDifference(flat, general)
            #expect(worst <= 1, "flattened and general differ by up to \(worst)/255")
            let centre = flat.pixels[32 * flat.width + 32]
            let expected: [UInt32] = [
                255, 0xf0 * 4 / 10 + 0x10 * 6 / 10, 0xc0 * 4 / 10 + 0x20 * 6 / 10, 0x30 * 4 / 10 + 0x30 * 6 / 10,
            ]
            let got = [24, 16, 8, 0].map { (centre >> UInt32($0)) & 0xFF }
            #expect(
                zip(got, expected).allSatisfy { ($0 > $1 ? $0 - $1 : $1 - $0) <= 1 },
                "\(got), expected \(expected)"
            )
        }

        /// Once its pixels are kept, a blurred layer that paints the whole frame opaquely
        /// (flattened onto the colour below, or at opacity 1) is where drawing begins: the
        /// colour below is not drawn first. A translucent one (not flattened: the sharp
        /// image at σ < 0.5) is not; the pixels equal an uncached render's either way.
        @Test func aBlurThatCoversTheFrameHidesWhatIsBelow() throws {
            let json = """
                {"name": "veil", "layers": [
                  {"id": "base", "bounds": [0, 0, 64, 64], "position": [32, 32], "backgroundColor": "#102030"},
                  {"id": "veil", "bounds": [0, 0, 64, 64], "position": [32, 32], "backgroundColor": "#f0c030",
                   "sublayers": [{"id": "dot", "bounds": [0, 0, 8, 8], "position": [20, 20], "backgroundColor": "#2040f0"}]}
                ]}
                """
            let renderer = try Self.renderer(json)
            let reference = try Self.renderer(json, cacheBytes: 0)
            let image = try renderer.makeFrame(width: 64, height: 64)
            for (sigma, opacity, first) in [(6.0, 0.4, 1), (6.0, 0.7, 1), (6.0, 1.0, 1), (0.3, 0.5, 0), (3.0, 0.5, 1)] {
                let values: [String: Value] = ["veil.blurRadius": .scalar(sigma), "veil.opacity": .scalar(opacity)]
                // The first frame at a σ makes the kept pixels; the second may use them.
                try renderer.render(values: values, into: image, previous: nil)
                try renderer.render(values: values, into: image, previous: nil)
                #expect(renderer.firstDrawn == first, "σ \(sigma), opacity \(opacity)")
                let expected = try reference.render(values: values, width: 64, height: 64)
                let worst = Self.worstDifference(image, expected)
                #expect(worst <= 1, "σ \(sigma), opacity \(opacity): differs by up to \(worst)/255")
            }
        }

        /// The work split into bands: contiguous ranges in order that cover everything,
        /// boundaries on whole cache lines, no band below the minimum, at most `maximum`.
        @Test func bandsCoverTheRangeOnce() {
            for (total, bands) in [(1080, 2), (1080, 3), (540, 4), (31, 2), (64, 2), (1, 4), (100, 1), (1920, 9)] {
                let ranges = Bands.split(total, bands: bands)
                #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == total, "\(total), \(bands)")
                #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
                #expect(ranges.dropFirst().allSatisfy { $0.lowerBound % Bands.alignment == 0 })
                #expect(ranges.count <= min(bands, Bands.maximum))
                #expect(ranges.count == 1 || ranges.allSatisfy { $0.count >= 16 })
            }
            #expect(Bands.split(0, bands: 2).isEmpty)
            #expect(Bands.split(31, bands: 2).count == 1)  // below twice the minimum: not split
            // Each band writes its own items (as the pixel loops do): through a pointer.
            let seen = UnsafeMutableBufferPointer<Int>.allocate(capacity: 1000)
            defer { seen.deallocate() }
            seen.initialize(repeating: 0)
            for _ in 0..<50 { Bands.run(1000, bands: 3) { range in for i in range { seen[i] += 1 } } }
            #expect(seen.allSatisfy { $0 == 50 })
        }

        /// The blur in bands (rows, then columns, at once) gives the same pixels as on one
        /// thread: the 3-tap passes and the boxes, on an image whose sides are not multiples
        /// of anything.
        @Test(arguments: [0.3, 0.9, 1.4, 3.0, 7.5])
        func theBlurInBandsIsTheBlurOnOneThread(sigma: Double) {
            var state: UInt32 = 2024
            let a = Image(width: 203, height: 117)
            Blur.withPixels(a.surface) { pixels, w, h, stride in
                for y in 0..<h {
                    for x in 0..<w {
                        state = state &* 1_664_525 &+ 1_013_904_223
                        let alpha = state >> 24
                        // premultiplied: no channel above alpha
                        let c = (state >> 8) & 0xFF
                        let v = min(c, alpha)
                        pixels[y * stride + x] = alpha << 24 | v << 16 | min(state & 0xFF, alpha) << 8 | v
                    }
                }
            }
            let b = Image(width: a.width, height: a.height)
            let cr = cairo_create(b.surface)!
            cairo_set_source_surface(cr, a.surface, 0, 0)
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
            cairo_paint(cr)
            cairo_destroy(cr)
            Blur.gaussian(a.surface, sigma: sigma, bands: 1)
            Blur.gaussian(b.surface, sigma: sigma, bands: 3)
            let differing = zip(a.pixels, b.pixels).filter { $0 != $1 }.count
            #expect(differing == 0, "σ \(sigma): \(differing) pixels differ")
            #expect(Set(b.pixels).count > 100)  // blurred, not cleared
        }

        /// Seed 003 drawn with the blur and the enlargement in bands equals the frames drawn
        /// on one thread, pixel for pixel, at σ for each reduction (½, ¼, ⅛), incrementally.
        @Test func panelBlurInBandsIsPanelBlurOnOneThread() throws {
            let path = YulaRenderTests.repository + "/scenes/panel-blur/panel-blur.scene.json"
            let timeline = try Timeline(
                document: Presets.document(named: "panel-blur")!,
                parameters: ["screen.width": 640, "screen.height": 480]
            )
            let one = try SceneRenderer(sceneFile: path)
            one.bands = 1
            let three = try SceneRenderer(sceneFile: path)
            three.bands = 3
            let screen = IncrementalRenderTests.halves(640, 480)
            let a = try one.makeFrame(width: 640, height: 480)
            let b = try three.makeFrame(width: 640, height: 480)
            var previous: [String: Value]? = nil
            for time in [0.0, 0.4, 0.5, 0.7, 0.8, 0.95, 1.2, 1.7, 2.5] {
                let values = timeline.keyedValues(timeline.evaluate(at: time))
                try one.render(values: values, into: a, previous: previous, previousScreen: screen)
                try three.render(values: values, into: b, previous: previous, previousScreen: screen)
                previous = values
                let differing = zip(a.pixels, b.pixels).filter { $0 != $1 }.count
                #expect(differing == 0, "t = \(time): \(differing) pixels differ")
            }
        }

        /// The opaque enlargement (CPixelLoops) is pixman's bilinear enlargement with the edges
        /// extended, within 1/255 (its weights are exact 16ths, rounded once; pixman's are 7-bit),
        /// for ×2, ×4 and ×8 onto a frame whose sides are not multiples of the factor; and a
        /// rectangle of it written alone is the same rectangle of the whole.
        @Test(arguments: [2, 4, 8])
        func theOpaqueEnlargementIsBilinear(factor: Int) {
            let width = 203
            let height = 117
            let small = Image(width: (width + factor - 1) / factor, height: (height + factor - 1) / factor)
            var state: UInt32 = UInt32(factor)
            Blur.withPixels(small.surface) { pixels, w, h, stride in
                for y in 0..<h {
                    for x in 0..<w {
                        state = state &* 1_664_525 &+ 1_013_904_223
                        pixels[y * stride + x] = 0xFF00_0000 | (state >> 8)
                    }
                }
            }
            let expected = Image(width: width, height: height)
            let cr = cairo_create(expected.surface)!
            cairo_scale(cr, Double(factor), Double(factor))
            cairo_set_source_surface(cr, small.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
            cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
            cairo_paint(cr)
            cairo_destroy(cr)
            func enlarged(_ x0: Int, _ x1: Int, _ y0: Int, _ y1: Int, into image: Image) -> Bool {
                var done = false
                Blur.withPixels(image.surface) { frame, _, _, stride in
                    Blur.withPixels(small.surface) { source, w, h, sourceStride in
                        done = curtain_enlarge(frame, stride, x0, x1, y0, y1, source, sourceStride, w, h, Int32(factor))
                    }
                }
                return done
            }
            let whole = Image(width: width, height: height)
            #expect(enlarged(0, width, 0, height, into: whole))
            let worst = Self.worstDifference(whole, expected)
            #expect(worst <= 1, "×\(factor): differs from pixman by up to \(worst)/255")
            let part = Image(width: width, height: height)
            #expect(enlarged(37, 150, 11, 90, into: part))
            let (a, b) = (part.pixels, whole.pixels)
            var differing = 0
            for y in 0..<height {
                for x in 0..<width
                where (37..<150).contains(x) && (11..<90).contains(y) && a[y * width + x] != b[y * width + x] {
                    differing += 1
                }
            }
            #expect(differing == 0)
            #expect(a[5 * width + 5] == 0)  // outside the rectangle: not written
            // Columns beyond the enlargement and a factor it does not know: refused, nothing written.
            #expect(!enlarged(0, small.width * factor + 1, 0, 1, into: part))
            #expect(curtain_enlarge(nil, 0, 0, 1, 0, 1, nil, 0, 1, 1, 3) == false)
        }
    }
}
