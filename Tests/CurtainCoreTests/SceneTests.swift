import FoundationEssentials
import Testing

@testable import CurtainCore

/// The scene document (docs/scene.md): parsing, validation with precise errors, limits at
/// their boundary, and frame values on top of model values.
@Suite struct SceneTests {
    static let shipped: [UInt8] = {
        // Tests/CurtainCoreTests/SceneTests.swift → the repository's scenes/yula/yula.scene.json.
        let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        return Array(try! String(contentsOfFile: "/" + root + "/scenes/yula/yula.scene.json", encoding: .utf8).utf8)
    }()

    /// A scene with `layers` (JSON text) and the usual screen parameters.
    func scene(_ layers: String, parameters: [String: Double] = [:]) throws(SceneError) -> Scene {
        try Scene(
            json: Array(
                #"{"name": "t", "parameters": [{"name": "screen.width", "default": 375}, {"name": "screen.height", "default": 667}], "layers": [\#(layers)]}"#
                    .utf8
            ),
            parameters: parameters
        )
    }

    func error(_ layers: String) -> String? {
        do {
            _ = try scene(layers)
            return nil
        } catch { return error.description }
    }

    @Test func shippedYulaSceneResolvesAtTheScreenSize() throws {
        let s = try Scene(json: Self.shipped, parameters: ["screen.width": 1080, "screen.height": 1920])
        #expect(s.layers.map(\.id) == ["backdrop", "window", "mask", "splash"])
        #expect(
            s.allLayers.map(\.id) == [
                "backdrop", "backdrop-text", "window", "hole-logo", "mask", "splash", "text", "logo",
            ]
        )
        #expect(s.layer("hole-logo")?.animatedBy == "logo")
        let window = try #require(s.layer("window"))
        #expect(window.role == .destination && window.mask == .init(layer: "mask", inverted: false))
        #expect(window.bounds == .init(x: 0, y: 0, width: 1080, height: 1920))
        #expect(s.layer("mask")?.position == .init(x: 540, y: 960))
        #expect(s.layer("mask")?.bounds == .init(x: 0, y: 0, width: 88, height: 88))
        #expect(s.maskLayerIDs == ["mask"])
        #expect(s.assetPaths == ["logo.svg", "logo-mask.svg"])
        #expect(s.layer("text")?.text?.string(variant: 1) == "Buy and sell next door")
        #expect(s.layer("text")?.text?.string(variant: 5) == s.layer("text")?.text?.string(variant: 1))  // wraps round
        // Every id the two yula presets animate is a layer of the scene.
        for name in ["yula-appear", "yula-mask-reveal"] {
            let timeline = try Timeline(document: Presets.document(named: name)!)
            for slot in timeline.slots { #expect(s.layer(slot.layer) != nil, "\(name) animates \(slot.layer)") }
        }
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        let text = "{\n  \"name\": \"x\",\n  \"layers\": [,]\n}"
        #expect(throws: SceneError("3:14", "JSON syntax error: unexpected character")) {
            try Scene(json: Array(text.utf8))
        }
    }

    @Test func expressionsAndDefaults() throws {
        let s = try scene(
            #"{"id": "a", "bounds": {"width": "screen.width / 2", "height": 10}, "anchorPoint": [0, 0]}"#,
            parameters: ["screen.width": 800]
        )
        let a = try #require(s.layer("a"))
        #expect(a.bounds.width == 400)
        #expect(a.position == .init(x: 0, y: 0))  // frame at the origin by default
        #expect(a.opacity == 1 && !a.hidden && a.contentsGravity == .resize)
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, "screen.depth", 1]}"#)?.hasPrefix(
                "layers[0].bounds[2]: 'screen.depth' column 1: unknown parameter"
            ) == true
        )
    }

    @Test func preciseErrors() {
        #expect(
            error(##"{"id": "a", "bounds": [0, 0, 1, 1], "colour": "#fff"}"##)?.hasPrefix(
                "layers[0].colour: unknown key (known: "
            ) == true
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1]}, {"id": "a", "bounds": [0, 0, 1, 1]}"#)
                == "layers[1].id: 'a' is already the id of layers[0]"
        )
        #expect(
            error(##"{"id": "a", "bounds": [0, 0, 1, 1], "backgroundColor": "#12345"}"##)
                == "layers[0].backgroundColor: '#12345' is not a #rgb, #rgba, #rrggbb or #rrggbbaa colour"
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "mask": {"layer": "nope"}}"#)
                == "layers[0].mask.layer: unknown layer 'nope' (layers: a)"
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "mask": {"layer": "a"}}"#)
                == "layers[0].mask.layer: a layer cannot mask itself"
        )
        #expect(
            error(
                #"{"id": "a", "bounds": [0, 0, 1, 1], "mask": {"layer": "b"}}, {"id": "b", "bounds": [0, 0, 1, 1], "mask": {"layer": "a"}}"#
            )
                == "layers[0].mask: masks form a cycle: a → b → a"
        )
        // A mask whose subtree is masked by the layer it masks is a cycle too.
        #expect(
            error(
                #"{"id": "a", "bounds": [0, 0, 1, 1], "mask": {"layer": "b"}}, {"id": "b", "bounds": [0, 0, 1, 1], "sublayers": [{"id": "c", "bounds": [0, 0, 1, 1], "mask": {"layer": "a"}}]}"#
            )
                == "layers[0].mask: masks form a cycle: a → b → a"
        )
        #expect(
            error(##"{"id": "w", "role": "destination", "bounds": [0, 0, 1, 1], "backgroundColor": "#fff"}"##)
                == "layers[0].backgroundColor: a destination layer is painted by the app, never by the overlay; remove 'backgroundColor'"
        )
        #expect(
            error(
                #"{"id": "a", "bounds": [0, 0, 1, 1]}, {"id": "b", "bounds": [0, 0, 1, 1], "mask": {"layer": "w"}}, {"id": "w", "role": "destination", "bounds": [0, 0, 1, 1]}"#
            )
                == "layers[1].mask.layer: 'w' is a destination layer; the overlay cannot draw it as a mask"
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "role": "app"}"#)
                == "layers[0].role: 'app' is not one of overlay, destination"
        )
        #expect(
            error(#"{"id": "a.b", "bounds": [0, 0, 1, 1]}"#)?.hasPrefix("layers[0].id: 'a.b' must be printable ASCII")
                == true
        )
        #expect(error(#"{"id": "a"}"#)?.hasPrefix("layers[0].bounds: is required") == true)
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "string": "x", "variants": ["y"]}"#)
                == "layers[0]: has both string and variants; use one"
        )
    }

    @Test func badPathData() {
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "path": "M 0 0 L 10"}"#)
                == "layers[0].path: path data at byte 11: expected a number"
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "path": "M0 0 A 5 5 0 0 1 10 10"}"#)
                == "layers[0].path: path data at byte 6: elliptical arcs (A) are not supported; write the curve with C"
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "path": "L 1 1"}"#)
                == "layers[0].path: path data at byte 1: must start with M or m, not 'L'"
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "path": "M0 0 X"}"#)
                == "layers[0].path: path data at byte 6: unknown command 'X'"
        )
    }

    @Test func pathDataIsAbsolute() throws {
        let p = try PathData(parsing: "m10 10 20 0 v5 h-5 q 0 10 10 10 z M0,0 C1 2 3 4 5 6 s 1 1 2 2")
        // The quadratic's cubic controls, computed as the parser does: two thirds of the way.
        let y1: Double = 15 + 2.0 / 3 * 10
        let x2: Double = 35 + 2.0 / 3 * -10
        let expected: [PathData.Command] = [
            .move(x: 10, y: 10), .line(x: 30, y: 10), .line(x: 30, y: 15), .line(x: 25, y: 15),
            .cubic(x1: 25, y1: y1, x2: x2, y2: 25, x: 35, y: 25), .close,
            .move(x: 0, y: 0), .cubic(x1: 1, y1: 2, x2: 3, y2: 4, x: 5, y: 6),
            .cubic(x1: 7, y1: 8, x2: 6, y2: 7, x: 7, y: 8),
        ]
        #expect(p.commands == expected)
    }

    @Test func assetPathsStayInTheScenesDirectory() {
        for bad in ["../logo.svg", "/etc/logo.svg", "a/../../logo.svg", "./logo.svg", "a//logo.svg"] {
            #expect(
                error(#"{"id": "a", "bounds": [0, 0, 1, 1], "contents": "\#(bad)"}"#)?.hasPrefix(
                    "layers[0].contents: '\(bad)'"
                ) == true,
                "\(bad)"
            )
        }
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "contents": "logo.gif"}"#)
                == "layers[0].contents: 'logo.gif' is neither .svg nor .png"
        )
        #expect(error(#"{"id": "a", "bounds": [0, 0, 1, 1], "contents": "art/logo.svg"}"#) == nil)
    }

    // MARK: limits at their boundary

    @Test func layerCountLimit() {
        func layers(_ n: Int) -> String {
            (0..<n).map { #"{"id": "l\#($0)", "bounds": [0, 0, 1, 1]}"# }.joined(separator: ",")
        }
        #expect(error(layers(Scene.Limits.layers)) == nil)
        #expect(error(layers(Scene.Limits.layers + 1)) == "layers[256]: is layer 257, more than the limit of 256")
    }

    @Test func depthLimit() {
        func nested(_ depth: Int) -> String {
            (1..<depth).reduce(#"{"id": "d\#(depth)", "bounds": [0, 0, 1, 1]}"#) { inner, level in
                #"{"id": "d\#(depth - level)", "bounds": [0, 0, 1, 1], "sublayers": [\#(inner)]}"#
            }
        }
        #expect(error(nested(Scene.Limits.depth)) == nil)
        #expect(
            error(nested(Scene.Limits.depth + 1))?.hasSuffix("is nested 17 deep, more than the limit of 16") == true
        )
    }

    @Test func coordinateLimit() {
        #expect(error(#"{"id": "a", "bounds": [-16384, 0, 16384, 16384], "position": [16384, -16384]}"#) == nil)
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 100000, 100000]}"#)
                == "layers[0].bounds.width: 100000.0 is beyond the limit of ±16384 points"
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "position": [0, 16384.5]}"#)
                == "layers[0].position.y: 16384.5 is beyond the limit of ±16384 points"
        )
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, -1]}"#) == "layers[0].bounds: width and height must not be negative"
        )
    }

    @Test func textLimit() {
        let atLimit = String(repeating: "é", count: Scene.Limits.textBytes / 2)
        #expect(error(#"{"id": "a", "bounds": [0, 0, 1, 1], "string": "\#(atLimit)"}"#) == nil)
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "variants": ["ok", "\#(atLimit)x"]}"#)
                == "layers[0].variants[1]: is 1025 bytes, more than the limit of 1024"
        )
    }

    @Test func variantGradientPathAndParameterLimits() {
        func variants(_ n: Int) -> String {
            #"{"id": "a", "bounds": [0, 0, 1, 1], "variants": [\#((0..<n).map { "\"v\($0)\"" }.joined(separator: ","))]}"#
        }
        #expect(error(variants(Scene.Limits.variants)) == nil)
        #expect(
            error(variants(Scene.Limits.variants + 1))
                == "layers[0].variants: holds 65 strings, more than the limit of 64"
        )
        func gradient(_ n: Int) -> String {
            ##"{"id": "a", "bounds": [0, 0, 1, 1], "gradient": {"colors": [\##(Array(repeating: "\"#000\"", count: n).joined(separator: ","))]}}"##
        }
        #expect(error(gradient(Scene.Limits.gradientStops)) == nil)
        #expect(
            error(gradient(Scene.Limits.gradientStops + 1))
                == "layers[0].gradient.colors: holds 33 colours, more than the limit of 32"
        )
        let head = "M0 0"
        let atLimit = head + String(repeating: " ", count: Scene.Limits.pathBytes - head.utf8.count)
        #expect(error(#"{"id": "a", "bounds": [0, 0, 1, 1], "path": "\#(atLimit)"}"#) == nil)
        #expect(
            error(#"{"id": "a", "bounds": [0, 0, 1, 1], "path": "\#(atLimit) "}"#)
                == "layers[0].path: path data is 65537 bytes, more than the limit of 65536"
        )
        func parameters(_ n: Int) -> [UInt8] {
            Array(
                #"{"name": "t", "parameters": [\#((0..<n).map { #"{"name": "p\#($0)", "default": 1}"# }.joined(separator: ","))], "layers": []}"#
                    .utf8
            )
        }
        #expect(throws: Never.self) { try Scene(json: parameters(Scene.Limits.parameters)) }
        #expect(throws: SceneError("parameters", "holds 65 parameters, more than the limit of 64")) {
            try Scene(json: parameters(Scene.Limits.parameters + 1))
        }
    }

    @Test func documentSizeLimit() {
        let head = #"{"name": "t", "layers": []}"#
        let atLimit = head + String(repeating: " ", count: Scene.Limits.documentSize - head.utf8.count)
        #expect(throws: Never.self) { try Scene(json: Array(atLimit.utf8)) }
        let text = atLimit + " "
        #expect(
            throws: SceneError(
                "",
                "the document is \(text.utf8.count) bytes, more than the limit of \(Scene.Limits.documentSize)"
            )
        ) {
            try Scene(json: Array(text.utf8))
        }
    }

    // MARK: presentation

    @Test func frameValuesApplyOnTopOfModelValues() throws {
        let s = try scene(
            ##"{"id": "a", "bounds": [0, 0, 10, 10], "position": [5, 5], "opacity": 0.5, "backgroundColor": "#ff0000"}"##
        )
        let a = try #require(s.layer("a"))
        let model = LayerPresentation(a, values: [:])
        #expect(
            model.opacity == 0.5 && model.transform == .identity
                && model.backgroundColor == Color(red: 1, green: 0, blue: 0)
        )
        let p = LayerPresentation(
            a,
            values: [
                "a.scale": .scalar(2), "a.rotation": .scalar(0.5), "a.translationY": .scalar(20),
                "a.opacity": .scalar(1.5), "a.hidden": .scalar(1), "b.opacity": .scalar(0),
            ]
        )
        #expect(p.transform == Transform(scaleX: 2, scaleY: 2, rotation: 0.5, translationX: 0, translationY: 20))
        #expect(p.opacity == 1 && p.hidden && !p.isVisible)
    }

    /// Whatever a timeline sends, the presentation is drawable: non-finite values are ignored,
    /// coordinates clamped.
    @Test func presentationIsAlwaysFinite() throws {
        let s = try scene(#"{"id": "a", "bounds": [0, 0, 10, 10], "position": [5, 5]}"#)
        let p = LayerPresentation(
            try #require(s.layer("a")),
            values: [
                "a.scale": .scalar(.nan), "a.position": .point(x: .infinity, y: 1),
                "a.bounds": .rect(x: 0, y: 0, width: 1e300, height: 2),
                "a.translationX": .scalar(-1e20),
            ]
        )
        #expect(p.transform.scaleX == 1 && p.position == .init(x: 5, y: 5))
        #expect(
            p.bounds.width == LayerPresentation.maximumCoordinate
                && p.transform.translationX == -LayerPresentation.maximumCoordinate
        )
    }

    /// A layer may show another id's values: seed 000's logo is drawn in the splash and, in the
    /// reveal, inside the window under the hole, both animated as `logo`.
    @Test func animatedByReadsAnotherIdsValues() throws {
        let s = try scene(#"{"id": "copy", "animatedBy": "logo", "bounds": [0, 0, 1, 1]}"#)
        let copy = try #require(s.layer("copy"))
        #expect(
            LayerPresentation(copy, values: ["logo.scale": .scalar(3), "copy.scale": .scalar(5)]).transform.scaleX == 3
        )
        #expect(
            error(#"{"id": "copy", "animatedBy": "a b", "bounds": [0, 0, 1, 1]}"#)
                == "layers[0].animatedBy: 'a b' must be a layer id: printable ASCII without spaces or '.'"
        )
    }

    @Test func revealFramesKeyedForTheRenderer() throws {
        let reveal = try Timeline(document: Presets.document(named: "yula-mask-reveal")!)
        let end = reveal.keyedValues(reveal.evaluate(at: 0.6))
        #expect(
            end["mask.hidden"] == .scalar(1) && end["mask.scale"] == .scalar(18) && end["splash.opacity"] == .scalar(0)
        )
    }
}
