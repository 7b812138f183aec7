import CurtainCore
import Testing

@testable import CurtainRender

#if canImport(Glibc)
import Glibc
#endif

extension RenderSuites {  // run one test at a time: RenderSuites.swift (left unindented)
    /// Seed 000 drawn from the shipped yula scene: goldens at chosen times, and pixel checks that
    /// follow from the article's numbers rather than from a stored picture.
    ///
    /// Goldens: Tests/CurtainRenderTests/Goldens/*.png at 375×667. A pixel matches when every
    /// premultiplied channel is within 2/255; at most `edgeAllowance` pixels (antialiased edges,
    /// about 0.1 % of the image) may differ more. Regenerate after an intended change with
    ///   CURTAIN_UPDATE_GOLDENS=1 swift test --filter CurtainRenderTests
    /// and look at the new images before committing them.
    @Suite struct YulaRenderTests {
        static let repository = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        static let goldens = repository + "/Tests/CurtainRenderTests/Goldens"
        static let width = 375, height = 667
        static let tolerance: UInt32 = 2
        static let edgeAllowance = 250
        /// The stand-in app colour of the checks (#2ecc71).
        static let app = Color(red: 0x2e / 255.0, green: 0xcc / 255.0, blue: 0x71 / 255.0)

        let renderer = try! SceneRenderer(sceneFile: YulaRenderTests.repository + "/scenes/yula/yula.scene.json")
        let appear = try! Timeline(document: Presets.document(named: "yula-appear")!)
        let reveal = try! Timeline(document: Presets.document(named: "yula-mask-reveal")!)

        func frame(
            _ timeline: Timeline,
            _ t: Double,
            overriding: [String: Value] = [:],
            destination: Color? = nil
        ) throws -> Image {
            let values = timeline.keyedValues(timeline.evaluate(at: t)).merging(overriding) { $1 }
            return try renderer.render(values: values, width: Self.width, height: Self.height, destination: destination)
        }

        /// Compares with the golden (or writes it when CURTAIN_UPDATE_GOLDENS is set).
        func expectGolden(_ image: Image, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let path = "\(Self.goldens)/\(name).png"
            if getenv("CURTAIN_UPDATE_GOLDENS") != nil {
                try image.writePNG(to: path)
                return
            }
            let golden = try #require(
                Image.readPNG(path),
                "no golden \(path); run with CURTAIN_UPDATE_GOLDENS=1",
                sourceLocation: sourceLocation
            )
            try #require(golden.width == image.width && golden.height == image.height, sourceLocation: sourceLocation)
            var beyond = 0
            var worst: UInt32 = 0
            for (a, b) in zip(image.pixels, golden.pixels) where a != b {
                var d: UInt32 = 0
                for shift in stride(from: 0, to: 32, by: 8) {
                    let x = (a >> shift) & 0xFF
                    let y = (b >> shift) & 0xFF
                    d = max(d, x > y ? x - y : y - x)
                }
                worst = max(worst, d)
                if d > Self.tolerance { beyond += 1 }
            }
            #expect(
                beyond <= Self.edgeAllowance,
                "\(name): \(beyond) pixels differ by more than \(Self.tolerance)/255 (worst \(worst)); allowed \(Self.edgeAllowance)",
                sourceLocation: sourceLocation
            )
        }

        @Test(arguments: [0.0, 0.15, 0.3])
        func appearGoldens(t: Double) throws {
            try expectGolden(try frame(appear, t), "yula-appear-\(Int(t * 1000))ms")
        }

        @Test(arguments: [0.0, 0.12, 0.3, 0.6])
        func revealGoldens(t: Double) throws {
            try expectGolden(try frame(reveal, t), "yula-mask-reveal-\(Int(t * 1000))ms")
        }

        /// Transparent coverage: Σ (1 − alpha), in pixels.
        func transparentArea(_ image: Image) -> Double {
            image.pixels.reduce(0.0) { $0 + Double(255 - ($1 >> 24)) / 255 }
        }

        /// The hole is the mask's shape under the window's and the mask's scale: its area grows
        /// with (window.scale · mask.scale)². The logo drawn over the hole is hidden here so that
        /// the hole itself is measured.
        @Test func holeAreaFollowsTheSquareOfTheScale() throws {
            let noLogo: [String: Value] = ["logo.opacity": .scalar(0)]
            func scale(_ t: Double) -> Double {
                let v = reveal.keyedValues(reveal.evaluate(at: t))
                guard case .scalar(let m)? = v["mask.scale"], case .scalar(let w)? = v["window.scale"] else {
                    return .nan
                }
                return m * w
            }
            let times = [0.0, 0.12, 0.14]
            let areas = try times.map { transparentArea(try frame(reveal, $0, overriding: noLogo)) }
            // At scale 1 the hole is the logo's silhouette at 88 pt: most of the 88×88 square.
            #expect(areas[0] > 0.6 * 88 * 88 * 1.05 * 1.05 && areas[0] < 88 * 88 * 1.05 * 1.05)
            for i in 1..<times.count {
                let expected = pow(scale(times[i]) / scale(times[0]), 2)
                let measured = areas[i] / areas[0]
                #expect(
                    abs(measured / expected - 1) < 0.02,
                    "t=\(times[i]): area ratio \(measured), (scale ratio)² \(expected)"
                )
            }
        }

        /// Mid-reveal the app shows at the centre (inside the hole) and the backdrop at a corner.
        @Test func appInsideTheHoleBackdropOutside() throws {
            let image = try frame(reveal, 0.2, destination: Self.app)
            let centre = image.rgba(Self.width / 2, Self.height / 2)
            #expect(centre.r == 0x2e && centre.g == 0xcc && centre.b == 0x71 && centre.a == 255)
            // The top-left corner is the gradient's first stop (#4b1fd1), within 2/255.
            let corner = image.rgba(0, 0)
            #expect(
                abs(Int(corner.r) - 0x4b) <= 2 && abs(Int(corner.g) - 0x1f) <= 2 && abs(Int(corner.b) - 0xd1) <= 2
                    && corner.a == 255,
                "corner \(corner)"
            )
        }

        /// The article's completion sets `mask = nil`: the last frame shows all of the app.
        @Test func finalFrameIsFullyTransparent() throws {
            let last = try frame(reveal, reveal.duration)
            #expect(last.pixels.allSatisfy { $0 == 0 })
            // A frame before the end still has the mask: some overlay pixel remains.
            #expect(try frame(reveal, 0.3).pixels.contains { $0 >> 24 != 0 })
        }

        /// On a wide, low screen the hole at 18·h/667 does not reach the left and right edges: only
        /// removing the mask (`mask.hidden` at the end) makes the last frame transparent.
        @Test func maskRemovalShowsTheWholeApp() throws {
            let wide = try Timeline(
                document: Presets.document(named: "yula-mask-reveal")!,
                parameters: ["screen.width": 1600, "screen.height": 400]
            )
            func render(_ t: Double) throws -> Image {
                try renderer.render(values: wide.keyedValues(wide.evaluate(at: t)), width: 1600, height: 400)
            }
            let before = try render(0.5999)
            #expect(before.rgba(0, 200).a == 255 && before.rgba(1599, 200).a == 255)  // backdrop beside the hole
            #expect(before.rgba(800, 200).a == 0)  // the app inside it
            #expect(try render(0.6).pixels.allSatisfy { $0 == 0 })
        }

        /// Before the reveal the overlay covers the whole screen.
        @Test(arguments: [0.0, 0.15, 0.3])
        func appearIsOpaque(t: Double) throws {
            #expect(try frame(appear, t).pixels.allSatisfy { $0 >> 24 == 0xFF })
        }

        @Test func textVariantChoosesTheText() throws {
            let values = appear.keyedValues(appear.evaluate(at: 0.3))
            let a = try renderer.render(values: values, width: Self.width, height: Self.height, textVariant: 0)
            let b = try renderer.render(values: values, width: Self.width, height: Self.height, textVariant: 1)
            let c = try renderer.render(values: values, width: Self.width, height: Self.height, textVariant: 4)
            #expect(a.pixels != b.pixels)
            #expect(a.pixels == c.pixels)  // 4 variants: variant 4 is variant 0 again
        }

        /// A renderer never goes down on a frame: absurd and non-finite values still draw.
        @Test func absurdValuesStillRender() throws {
            let values: [String: Value] = [
                "text.bounds": .rect(x: 0, y: 0, width: 1e300, height: 1e300), "logo.scale": .scalar(.nan),
                "mask.scale": .scalar(0), "window.rotation": .scalar(1e12), "splash.translationX": .scalar(-.infinity),
            ]
            #expect(try renderer.render(values: values, width: 64, height: 100).width == 64)
        }

        @Test func outputSizeLimit() throws {
            #expect(
                try renderer.render(values: [:], width: SceneRenderer.Limits.outputDimension, height: 1).width == 8192
            )
            #expect(throws: RenderError("the output size 8193×1 is outside 1…8192 in each dimension")) {
                try renderer.render(values: [:], width: 8193, height: 1)
            }
        }

        @Test func contactSheetHoldsEveryFrame() throws {
            let frames = try [0.0, 0.3, 0.6].map { (time: $0, image: try frame(reveal, $0)) }
            let sheet = try ContactSheet.make(title: "reveal", frames: frames, columns: 2, thumbnailWidth: 100)
            #expect(sheet.width == 12 + 2 * 112 && sheet.height > 2 * Int(100.0 * 667 / 375))
            let small = try renderer.render(values: [:], width: 60, height: 100)
            #expect(
                try ContactSheet.make(
                    title: "x",
                    frames: Array(repeating: (0, small), count: ContactSheet.maximumFrames),
                    thumbnailWidth: 8
                ).width > 0
            )
            #expect(throws: RenderError("121 frames is more than a contact sheet's limit of 120")) {
                try ContactSheet.make(title: "x", frames: Array(repeating: frames[0], count: 121))
            }
        }
    }
}

extension RenderSuites {  // run one test at a time: RenderSuites.swift (left unindented)
    /// Scenes that must be refused with a precise error, never drawn and never crash.
    @Suite struct BadSceneTests {
        let directory: String

        init() {
            var template = Array("/tmp/curtain-scene-XXXXXX".utf8CString)
            directory = String(cString: mkdtemp(&template)!)
        }

        func write(_ name: String, _ bytes: [UInt8]) {
            let file = fopen(directory + "/" + name, "wb")!
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
        }

        func write(_ name: String, _ text: String) { write(name, Array(text.utf8)) }

        func cleanUp() { _ = system("rm -rf '\(directory)'") }

        /// The error of loading a scene whose only image layer shows `asset`.
        func loadError(contents asset: String, extra: String = "") -> String? {
            write(
                "s.scene.json",
                #"{"name": "s", "layers": [{"id": "a", "bounds": [0, 0, 10, 10], "contents": "\#(asset)"}\#(extra)]}"#
            )
            do {
                _ = try SceneRenderer(sceneFile: directory + "/s.scene.json")
                return nil
            } catch { return error.message }
        }

        static let svg =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#

        @Test func missingAsset() {
            defer { cleanUp() }
            #expect(
                loadError(contents: "nowhere.svg")
                    == "\(directory)/s.scene.json: asset 'nowhere.svg': no such file (looked for \(directory)/nowhere.svg)"
            )
        }

        @Test func malformedSVG() {
            defer { cleanUp() }
            write("bad.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect")
            #expect(
                loadError(contents: "bad.svg")?.hasPrefix(
                    "\(directory)/s.scene.json: asset 'bad.svg': is not a valid SVG document: "
                ) == true
            )
        }

        @Test func symbolicLinkOutOfTheDirectory() {
            defer { cleanUp() }
            symlink("/etc/hostname", directory + "/escape.svg")
            #expect(
                loadError(contents: "escape.svg")?.contains(
                    "asset 'escape.svg': resolves to /etc/hostname, outside the scene's directory"
                ) == true
            )
            #expect(
                loadError(contents: "../escape.svg")
                    == "\(directory)/s.scene.json: layers[0].contents: '../escape.svg' leaves or wanders the scene's directory ('..', '.' and empty parts are refused)"
            )
        }

        @Test func unknownMaskAndCycle() {
            defer { cleanUp() }
            write("a.svg", Self.svg)
            #expect(
                loadError(contents: "a.svg", extra: #", {"id": "b", "bounds": [0, 0, 1, 1], "mask": {"layer": "m"}}"#)
                    == "\(directory)/s.scene.json: layers[1].mask.layer: unknown layer 'm' (layers: a, b)"
            )
            #expect(
                loadError(
                    contents: "a.svg",
                    extra:
                        #", {"id": "b", "bounds": [0, 0, 1, 1], "mask": {"layer": "c"}}, {"id": "c", "bounds": [0, 0, 1, 1], "mask": {"layer": "b"}}"#
                )
                    == "\(directory)/s.scene.json: layers[1].mask: masks form a cycle: b → c → b"
            )
        }

        @Test func hugeBounds() {
            defer { cleanUp() }
            write("s.scene.json", #"{"name": "s", "layers": [{"id": "a", "bounds": [0, 0, 100000, 100000]}]}"#)
            #expect(
                throws: RenderError(
                    "\(directory)/s.scene.json: layers[0].bounds.width: 100000.0 is beyond the limit of ±16384 points"
                )
            ) {
                try SceneRenderer(sceneFile: directory + "/s.scene.json")
            }
        }

        @Test func syntaxErrorWithLineAndColumn() {
            defer { cleanUp() }
            write("s.scene.json", "{\"name\": \"s\",\n \"layers\": [}")
            #expect(throws: RenderError("\(directory)/s.scene.json:2:13: JSON syntax error: unexpected character")) {
                try SceneRenderer(sceneFile: directory + "/s.scene.json")
            }
        }

        /// Asset size: exactly the limit loads, one byte more is refused before it is read.
        @Test func assetSizeLimit() {
            defer { cleanUp() }
            let head = Array(
                #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#
                    .utf8
            )
            let atLimit = head + [UInt8](repeating: 0x20, count: Scene.Limits.assetBytes - head.count)
            write("big.svg", atLimit)
            #expect(loadError(contents: "big.svg") == nil)
            write("big.svg", atLimit + [0x20])
            #expect(
                loadError(contents: "big.svg")
                    == "\(directory)/s.scene.json: asset 'big.svg': is 8388609 bytes, more than the limit of 8388608 (8 MiB)"
            )
        }

        /// Image dimensions: 8192 wide loads, 8193 is refused from the PNG header, before decoding
        /// (a small file may claim a huge image).
        @Test func imageDimensionLimit() throws {
            defer { cleanUp() }
            try Image(width: 8192, height: 1).writePNG(to: directory + "/wide.png")
            #expect(loadError(contents: "wide.png") == nil)
            try Image(width: 8193, height: 1).writePNG(to: directory + "/wide.png")
            #expect(
                loadError(contents: "wide.png")
                    == "\(directory)/s.scene.json: asset 'wide.png': is 8193 × 1 pixels, more than the limit of 8192 × 8192"
            )
            write("fake.png", Array("not a png at all, but long enough".utf8))
            #expect(
                loadError(contents: "fake.png")
                    == "\(directory)/s.scene.json: asset 'fake.png': is not a PNG file (no PNG signature and IHDR header)"
            )
        }

        @Test func svgDimensionLimit() {
            defer { cleanUp() }
            write("tall.svg", #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 9000"/>"#)
            #expect(
                loadError(contents: "tall.svg")
                    == "\(directory)/s.scene.json: asset 'tall.svg': is 10 × 9000 pixels, more than the limit of 8192 × 8192"
            )
        }
    }
}
