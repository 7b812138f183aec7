import CCairo
import CurtainCore
import Testing

@testable import CurtainRender

#if canImport(Glibc)
import Glibc
#endif

extension RenderSuites {  // run one test at a time: RenderSuites.swift (left unindented)
    /// Seeds 001, 003 and 004 drawn from their shipped scenes: goldens at chosen times (the same
    /// tolerance as seed 000's: each premultiplied channel within 2/255, at most 250 pixels beyond
    /// — see YulaRenderTests), and one pixel check each that follows from the article's numbers.
    @Suite struct SeedRenderTests {
        static let scenes = YulaRenderTests.repository + "/scenes"
        static let width = 375, height = 667
        static let app = YulaRenderTests.app

        func renderer(_ scene: String) throws -> SceneRenderer {
            try SceneRenderer(sceneFile: "\(Self.scenes)/\(scene)/\(scene).scene.json")
        }
        func timeline(_ name: String, _ parameters: [String: Double] = [:]) throws -> Timeline {
            try Timeline(document: Presets.document(named: name)!, parameters: parameters)
        }
        func render(
            _ r: SceneRenderer,
            _ t: Timeline,
            at time: Double,
            overriding: [String: Value] = [:],
            destination: Color? = app,
            previous: Image? = nil
        ) throws -> Image {
            let values = t.keyedValues(t.evaluate(at: time)).merging(overriding) { $1 }
            return try r.render(
                values: values,
                width: Self.width,
                height: Self.height,
                destination: destination,
                previousScreen: previous
            )
        }
        func golden(_ image: Image, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try YulaRenderTests().expectGolden(image, name, sourceLocation: sourceLocation)
        }

        @Test(arguments: [0.0, 0.2, 0.35, 1.0])
        func slideGoldens(t: Double) throws {
            try golden(try render(try renderer("slide"), try timeline("slide"), at: t), "slide-\(Int(t * 1000))ms")
        }

        @Test(arguments: [0.5, 1.0, 1.5, 2.5])
        func flipGoldens(t: Double) throws {
            try golden(try render(try renderer("slide"), try timeline("flip"), at: t), "flip-\(Int(t * 1000))ms")
        }

        @Test(arguments: [0.0, 1.25, 2.5])
        func panelBlurGoldens(t: Double) throws {
            try golden(
                try render(try renderer("panel-blur"), try timeline("panel-blur"), at: t),
                "panel-blur-\(Int(t * 1000))ms"
            )
        }

        static let heroDestination = [
            "logo": Hero.Frame(x: 16, y: 40, width: 48, height: 48),
            "title": Hero.Frame(x: 72, y: 48, width: 200, height: 32),
            "list": Hero.Frame(x: 16, y: 120, width: 343, height: 400),
        ]
        func heroTimeline(_ r: SceneRenderer) throws -> Timeline {
            let scene = try r.scene(width: Self.width, height: Self.height)
            return try Timeline(
                document: Hero.document(
                    from: Hero.elements(in: scene),
                    to: Self.heroDestination.mapValues { Hero.Element($0) }
                )
            )
        }

        @Test(arguments: [0.0, 0.25, 0.54])
        func heroGoldens(t: Double) throws {
            let r = try renderer("hero")
            try golden(
                try render(r, try heroTimeline(r), at: t, destination: Color(red: 0.95, green: 0.96, blue: 0.98)),
                "hero-\(Int(t * 1000))ms"
            )
        }

        /// Seed 001: mid-slide the presenter shows at its spring-driven opacity over the black
        /// container: its pixels are the splash's colour times that opacity (the article's
        /// `fromCtrl.view.alpha` → 0.5). Measured where the window has not arrived yet.
        @Test func presenterDimsToItsOpacity() throws {
            let r = try renderer("slide")
            let t = try timeline("slide")
            let full = try render(
                r,
                t,
                at: 0,
                overriding: ["splash.opacity": .scalar(1), "window.translationY": .scalar(10_000)]
            )
            let time = 0.15
            guard case .scalar(let opacity)? = t.keyedValues(t.evaluate(at: time))["splash.opacity"] else {
                Issue.record("no opacity")
                return
            }
            #expect(opacity < 0.75)  // well on its way to 0.5
            let dimmed = try render(r, t, at: time)
            for (x, y) in [(10, 10), (300, 20), (187, 5)] {
                let a = full.rgba(x, y)
                let b = dimmed.rgba(x, y)
                for (c, d) in [(a.r, b.r), (a.g, b.g), (a.b, b.b)] {
                    #expect(abs(Double(d) - Double(c) * opacity) <= 1.5, "(\(x), \(y)): \(d) vs \(c) × \(opacity)")
                }
                #expect(b.a == 255)
            }
            // At the end the presenter is back at 1 but covered: the whole app shows.
            #expect(try render(r, t, at: 1, destination: nil).pixels.allSatisfy { $0 == 0 })
        }

        /// Seed 002 over its own scene: mid-flight the splash is at the timeline's opacity over the
        /// app while the logo, a layer above it, stays opaque on its way to the reported frame; at
        /// the end the splash and the logo are gone and the whole app shows.
        @Test func logoMoveFadesTheSplashAndFliesTheLogo() throws {
            let r = try renderer("logo-move")
            let t = try timeline(
                "logo-move",
                ["element.logo.x": 60, "element.logo.y": 80, "element.logo.width": 40, "element.logo.height": 40]
            )
            let time = 0.525  // half way through the 0.35 s flight after its 0.35 s delay
            let values = t.keyedValues(t.evaluate(at: time))
            guard case .scalar(let opacity)? = values["splash.opacity"],
                case .point(let x, let y)? = values["logo.position"]
            else {
                Issue.record("no splash.opacity or logo.position")
                return
            }
            #expect(opacity > 0.2 && opacity < 0.8)
            let image = try render(r, t, at: time, destination: nil)
            // A corner: only the fading splash (over a transparent app) — its alpha is the opacity.
            #expect(
                abs(Double(image.rgba(2, 2).a) - 255 * opacity) <= 1.5,
                "corner alpha \(image.rgba(2, 2).a), opacity \(opacity)"
            )
            // The logo's body at its animated centre is opaque however far the splash faded (over
            // a transparent app, only the logo can make a pixel opaque).
            let centre = image.rgba(Int(x), Int(y) + 6)
            #expect(centre.a == 255, "logo at (\(x), \(y)): \(centre)")
            // Between the splash's centre and the landing frame: the logo left the middle.
            #expect(x < 187.5 && y < 333.5)
            #expect(try render(r, t, at: 0.7, destination: nil).pixels.allSatisfy { $0 == 0 })
        }

        /// Seed 001's flip: a full-screen layer turned by θ about its centre projects to a width of
        /// x'(w/2) − x'(−w/2) with x'(u) = u·cos θ / (1 + 0.002·u·sin θ) — w·cos θ within 20 % — and its
        /// near edge grows by 1 / w(u). Measured on the app's window (the hole the overlay leaves).
        @Test(arguments: [-1.3, -1.1, -0.9])  // both edges on screen
        func projectedWidthFollowsCosTheta(theta: Double) throws {
            let r = try renderer("slide")
            let t = try timeline("flip")
            let image = try render(
                r,
                t,
                at: 2.5,
                overriding: ["window.rotationY": .scalar(theta), "splash.opacity": .scalar(0)],
                destination: nil
            )
            let row = Self.height / 2
            let clear = (0..<Self.width).filter { image.rgba($0, row).a < 128 }
            let measured = Double(clear.count)
            let transform = Transform(rotationY: theta, m34: -0.002)
            let half = Double(Self.width) / 2
            let expected = transform.project(x: half, y: 0)!.x - transform.project(x: -half, y: 0)!.x
            #expect(abs(measured - expected) <= 2, "θ \(theta): \(measured) px, expected \(expected)")
            #expect(abs(expected / (Double(Self.width) * cos(theta)) - 1) < 0.2)  // ≈ w·cos θ; the rest is perspective
            // The far (left, for θ < 0) edge is shorter than the near one: perspective.
            let left = clear.first!
            let right = clear.last!
            func height(_ x: Int) -> Int { (0..<Self.height).filter { image.rgba(x, $0).a < 128 }.count }
            #expect(height(left + 1) < height(right - 1))
            // The column's height is the screen's divided by w(u) of the layer point u seen there:
            // x' = u·cos θ / (1 + a·u), a = 0.002·sin θ, so u = x' / (cos θ − a·x').
            for x in [left + 1, (left + right) / 2, right - 1] {
                let seen = Double(x) + 0.5 - half
                let a = 0.002 * sin(theta)
                let u = seen / (cos(theta) - a * seen)
                // the screen clips
                let expectedHeight = min(Double(Self.height), Double(Self.height) * transform.project(x: u, y: 1)!.y)
                #expect(
                    abs(Double(height(x)) - expectedHeight) <= 2.5,
                    "column \(x): \(height(x)), expected \(expectedHeight)"
                )
            }
        }

        /// Seed 003's blur is a Gaussian of the previous screen: a hard black/white edge becomes a
        /// ramp whose 10 %–90 % width is 2.563·σ (σ = blurRadius), and so grows with the radius.
        @Test func blurredEdgeWidthGrowsWithTheRadius() throws {
            let r = try renderer("panel-blur")
            let t = try timeline("panel-blur")
            // The previous screen: black left half, white right half.
            let previous = Image(width: Self.width, height: Self.height)
            let cr = cairo_create(previous.surface)!
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            cairo_set_source_rgb(cr, 0, 0, 0)
            cairo_rectangle(cr, 0, 0, Double(Self.width / 2), Double(Self.height))
            cairo_fill(cr)
            cairo_destroy(cr)
            func rampWidth(_ sigma: Double) throws -> Double {
                let image = try render(
                    r,
                    t,
                    at: 0,
                    overriding: ["backdrop.blurRadius": .scalar(sigma)],
                    destination: nil,
                    previous: previous
                )
                let row = Self.height / 4
                let levels = (0..<Self.width).map { Double(image.rgba($0, row).g) / 255 }
                // Sub-pixel crossings of 10 % and 90 %, by linear interpolation.
                func crossing(_ level: Double) -> Double {
                    let i = levels.firstIndex { $0 >= level }!
                    return Double(i - 1) + (level - levels[i - 1]) / (levels[i] - levels[i - 1])
                }
                return crossing(0.9) - crossing(0.1)
            }
            var widths: [Double] = []
            for sigma in [4.0, 10.0, 20.0] {
                let width = try rampWidth(sigma)
                #expect(
                    abs(width / (2.563 * sigma) - 1) < 0.08,
                    "σ \(sigma): ramp \(width) px, Gaussian \(2.563 * sigma)"
                )
                widths.append(width)
            }
            #expect(widths[0] < widths[1] && widths[1] < widths[2])
            #expect(try rampWidth(0) <= 1.5)  // no blur: a hard edge
        }

        /// A blur is drawn from a reduction of the layer (½ from σ = 0.5 device pixels, ¼ from
        /// σ = 2, ⅛ from σ = 5.99; sharp below 0.5), and the σ left to apply there adds up, with the reduction's own
        /// softening, to the σ asked for (variances add).
        @Test func blurPlanAtItsBoundaries() {
            #expect(Blur.plan(sigma: 0).level == 0)
            #expect(Blur.plan(sigma: Blur.smallestSigma.nextDown).level == 0)
            #expect(Blur.plan(sigma: Blur.smallestSigma).level == 1)
            #expect(Blur.plan(sigma: Blur.quarterFrom.nextDown).level == 1)
            #expect(Blur.plan(sigma: Blur.quarterFrom).level == 2)
            #expect(Blur.plan(sigma: Blur.eighthFrom.nextDown).level == 2)
            #expect(Blur.plan(sigma: Blur.eighthFrom).level == 3)
            // The ¼ image's 3-tap passes reach just short of the ⅛ reduction.
            let quarter = Blur.plan(sigma: Blur.eighthFrom.nextDown).sigma
            #expect(Blur.tapPasses(variance: quarter * quarter) != nil)
            #expect(Blur.plan(sigma: .infinity).level == 0)
            for sigma in [1.0, 2.5, 6, 20, 80] {
                let plan = Blur.plan(sigma: sigma)
                let factor = Double(Blur.factors[plan.level])
                let total =
                    ((plan.sigma * factor) * (plan.sigma * factor)
                    + pow(Blur.inherentSigma(Blur.factors[plan.level]), 2)).squareRoot()
                #expect(abs(total - sigma) < 1e-9, "σ \(sigma): \(total)")
            }
            // Below the ½ reduction's own softening nothing is left to blur there.
            #expect(Blur.plan(sigma: 0.9).sigma == 0)
        }

        /// Seed 003's retained screen is drawn and reduced once per launch: frames that change
        /// only the blur radius and the opacity (and the panel) reuse the kept reductions; another
        /// previous screen makes new ones. The budget counts them: kept with a budget of exactly
        /// their bytes, not with one byte less (pixels the same either way).
        @Test func blurredRetainedScreenIsReducedOncePerScreen() throws {
            let r = try renderer("panel-blur")
            let t = try timeline("panel-blur")
            let screen = IncrementalRenderTests.halves(Self.width, Self.height)
            let kept = try r.makeFrame(width: Self.width, height: Self.height)
            var previous: [String: Value]? = nil
            var made: BlurredLayer? = nil
            for time in [0.5, 1.0, 1.5, 2.5] {
                let values = t.keyedValues(t.evaluate(at: time))
                try r.render(values: values, into: kept, previous: previous, previousScreen: screen)
                previous = values
                let blurred = try #require(r.cache.blurredLayer("backdrop"))
                if let made { #expect(blurred === made, "t = \(time)") }
                made = blurred
            }
            let other = IncrementalRenderTests.halves(Self.width, Self.height, left: (1, 0, 0))
            try r.render(values: previous!, into: kept, previous: previous, previousScreen: other)
            let remade = r.cache.blurredLayer("backdrop")
            #expect(remade != nil && remade !== made)

            let bytes = try #require(made).bytes
            let values = t.keyedValues(t.evaluate(at: 1.25))
            var images: [Image] = []
            for (budget, keeps) in [(bytes, true), (bytes - 1, false)] {
                let budgeted = try SceneRenderer(sceneFile: r.path, cacheBytes: budget)
                images.append(
                    try budgeted.render(values: values, width: Self.width, height: Self.height, previousScreen: screen)
                )
                #expect((budgeted.cache.blurredLayer("backdrop") != nil) == keeps, "budget \(budget)")
                #expect(budgeted.cache.bytes <= budget)
            }
            #expect(images[0].pixels == images[1].pixels)
        }

        /// The blur's vertical pass runs over all columns at once, row after row (cache order):
        /// the same pixels as the box pass down each column, at every radius.
        @Test func rowOrderColumnPassEqualsTheColumnWalk() {
            let w = 37
            let h = 23
            let stride = 40
            var state: UInt32 = 12345
            let image = (0..<stride * h).map { _ -> UInt32 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return state
            }
            for r in [0, 1, 3, 11, 30] {
                var expected = image
                var actual = image
                let scratch = UnsafeMutablePointer<UInt32>.allocate(capacity: h)
                let copy = UnsafeMutablePointer<UInt32>.allocate(capacity: w * h)
                let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: 4 * w)
                defer {
                    scratch.deallocate()
                    copy.deallocate()
                    sums.deallocate()
                }
                expected.withUnsafeMutableBufferPointer { p in
                    for x in 0..<w { Blur.box(p.baseAddress! + x, step: stride, count: h, radius: r, scratch) }
                }
                actual.withUnsafeMutableBufferPointer { p in
                    Blur.boxColumns(p.baseAddress!, stride: stride, width: w, height: h, radius: r, copy, sums)
                }
                #expect(actual == expected, "radius \(r)")
            }
        }

        /// The blur's division by a multiplication is exact: every sum of n 8-bit values for the
        /// small widths, the extremes for widths up to the largest radius's.
        @Test func reciprocalDivisionIsExact() {
            for n in UInt32(1)...101 {
                let divide = Blur.Divider(n)
                for s in 0...(255 * n) where divide(s) != (s + n / 2) / n {
                    Issue.record("n \(n), s \(s)")
                    return
                }
            }
            for n in stride(from: UInt32(103), through: 20_001, by: 97) {
                let divide = Blur.Divider(n)
                for s in [0, 1, n / 2, n - 1, n, 128 * n + n / 2, 255 * n - 1, 255 * n]
                where divide(s) != (s + n / 2) / n { Issue.record("n \(n), s \(s)") }
            }
        }

        /// Without a previous screen a retained layer shows its own stand-in; with one, the image.
        @Test func retainedLayerShowsThePreviousScreen() throws {
            let r = try renderer("panel-blur")
            let t = try timeline("panel-blur")
            let previous = Image(width: 10, height: 10)
            let cr = cairo_create(previous.surface)!
            cairo_set_source_rgb(cr, 1, 0, 0)
            cairo_paint(cr)
            cairo_destroy(cr)
            let image = try render(r, t, at: 0, destination: nil, previous: previous)
            let p = image.rgba(20, 20)
            #expect(p.r == 255 && p.g == 0 && p.b == 0 && p.a == 255)
            let standIn = try render(r, t, at: 0, destination: nil).rgba(20, 20)
            #expect(standIn.r != 255 || standIn.g != 0)
        }

        /// Seed 004: the splash side is the scene's heroIDs; a matched element ends at the frame the
        /// app reported, the unmatched tagline leaves with its own modifiers.
        @Test func heroElementsComeFromTheSceneAndLandOnTheReportedFrames() throws {
            let r = try renderer("hero")
            let scene = try r.scene(width: Self.width, height: Self.height)
            #expect(Set(Hero.elements(in: scene).keys) == ["logo", "title", "tagline"])
            #expect(Hero.elements(in: scene)["tagline"]?.modifiers.scale == 0.5)
            let t = try heroTimeline(r)
            let end = try render(r, t, at: t.duration, destination: nil)
            // The logo (white) sits inside its reported 48 pt frame, and nothing of it is left at the centre.
            let logo = Self.heroDestination["logo"]!
            let inside = (Int(logo.x)..<Int(logo.x + logo.width)).flatMap { x in
                (Int(logo.y)..<Int(logo.y + logo.height)).map { (x, $0) }
            }
            #expect(inside.contains { end.rgba($0.0, $0.1).a == 255 })
            #expect(end.rgba(Self.width / 2, Self.height / 2).a == 0)
        }
    }
}
