import RealModule
import Testing

@testable import CurtainCore

/// Seed 000 (Yula): every number checked here is the article's (see Presets/Yula.swift).
@Suite struct YulaPresetTests {
    let reveal = try! Timeline(document: Presets.document(named: "yula-mask-reveal")!)

    @Test func lastsSixTenthsOfASecond() { #expect(reveal.duration == 0.6) }

    @Test func maskScaleKeyframes() {
        // keyTimes 0, 0.2, 1 of 0.6 s: scale 1 at 0 s, 0.85 at 0.12 s, 18·667/667 = 18 at 0.6 s.
        #expect(reveal.evaluate(at: 0).scalar(reveal, "mask", "scale") == 1)
        expectClose(reveal.evaluate(at: 0.12).scalar(reveal, "mask", "scale"), 0.85, 1e-12)
        #expect(reveal.evaluate(at: 0.6).scalar(reveal, "mask", "scale") == 18)
        #expect(reveal.evaluate(at: 5).scalar(reveal, "mask", "scale") == 18)  // fill forwards
        // Halfway through the first segment, ease-in-ease-out is exactly halfway: (1 + 0.85) / 2.
        expectClose(reveal.evaluate(at: 0.06).scalar(reveal, "mask", "scale"), 0.925, 1e-9)
        // Second segment uses easeOut: at its middle (0.36 s) 0.85 + (18 − 0.85)·easeOut(0.5).
        let easeOutHalf = TimingFunction.easeOut.value(at: 0.5)
        expectClose(reveal.evaluate(at: 0.36).scalar(reveal, "mask", "scale"), 0.85 + 17.15 * easeOutHalf, 1e-9)
        // The logo under the hole follows the same curve.
        expectClose(reveal.evaluate(at: 0.36).scalar(reveal, "logo", "scale"), 0.85 + 17.15 * easeOutHalf, 1e-9)
    }

    @Test func finalScaleFollowsScreenHeight() throws {
        let tall = try Timeline(
            document: Presets.document(named: "yula-mask-reveal")!,
            parameters: ["screen.height": 812, "screen.width": 375]
        )
        expectClose(tall.evaluate(at: 0.6).scalar(tall, "mask", "scale"), 18 * 812 / 667, 1e-12)
    }

    @Test func rotationIsMinusAtanOfPosition() throws {
        // Centre of a 375 × 667 screen: −atan(333.5 / 187.5), reached linearly over 0.6 s.
        let angle = -Double.atan(333.5 / 187.5)
        expectClose(reveal.evaluate(at: 0.6).scalar(reveal, "mask", "rotation"), angle, 1e-15)
        expectClose(reveal.evaluate(at: 0.3).scalar(reveal, "mask", "rotation"), angle / 2, 1e-15)
        let moved = try Timeline(
            document: Presets.document(named: "yula-mask-reveal")!,
            parameters: ["mask.x": 100, "mask.y": 100]
        )
        expectClose(moved.evaluate(at: 0.6).scalar(moved, "logo", "rotation"), -Double.pi / 4, 1e-15)
    }

    @Test func logoFadesAfterATenth() {
        #expect(reveal.evaluate(at: 0).scalar(reveal, "logo", "opacity") == 1)
        #expect(reveal.evaluate(at: 0.1).scalar(reveal, "logo", "opacity") == 1)
        expectClose(reveal.evaluate(at: 0.15).scalar(reveal, "logo", "opacity"), 0.5, 1e-9)
        #expect(reveal.evaluate(at: 0.2).scalar(reveal, "logo", "opacity") == 0)
    }

    @Test func textFadesAndWindowSettles() {
        expectClose(reveal.evaluate(at: 0.15).scalar(reveal, "backdrop-text", "opacity"), 0.5, 1e-9)
        #expect(reveal.evaluate(at: 0.3).scalar(reveal, "backdrop-text", "opacity") == 0)
        #expect(reveal.evaluate(at: 0).scalar(reveal, "window", "scale") == 1.05)
        expectClose(reveal.evaluate(at: 0.3).scalar(reveal, "window", "scale"), 1.025, 1e-9)
        #expect(reveal.evaluate(at: 0.6).scalar(reveal, "window", "scale") == 1)
        #expect(reveal.evaluate(at: 0.3).scalar(reveal, "splash", "opacity") == 0)
    }

    @Test func appear() throws {
        let appear = try Timeline(document: Presets.document(named: "yula-appear")!)
        #expect(appear.duration == 0.3)
        // 72 pt → 88 pt, with scale 1 the resting 88 pt frame (the scene's logo bounds).
        #expect(appear.evaluate(at: 0).scalar(appear, "logo", "scale") == 72.0 / 88)
        #expect(appear.evaluate(at: 0.3).scalar(appear, "logo", "scale") == 1)
        #expect(appear.evaluate(at: 0).scalar(appear, "text", "translationY") == 20)
        #expect(appear.evaluate(at: 0.3).scalar(appear, "text", "translationY") == 0)
        #expect(appear.evaluate(at: 0.15).scalar(appear, "text", "opacity") == 1)
        expectClose(appear.evaluate(at: 0.075).scalar(appear, "text", "opacity"), 0.5, 1e-9)
    }

    /// The article's completion sets `mainWindow.layer.mask = nil`: the mask is hidden from
    /// exactly the reveal's end on, and not a frame before.
    @Test func maskIsRemovedAtTheEnd() {
        #expect(reveal.evaluate(at: 0).scalar(reveal, "mask", "hidden") == 0)
        #expect(reveal.evaluate(at: 0.5999).scalar(reveal, "mask", "hidden") == 0)
        #expect(reveal.evaluate(at: 0.6).scalar(reveal, "mask", "hidden") == 1)
        #expect(reveal.evaluate(at: 2).scalar(reveal, "mask", "hidden") == 1)
        #expect(reveal.duration == 0.6)
    }

    @Test func everyPresetCompiles() throws {
        for name in Presets.all.keys { _ = try Timeline(document: Presets.document(named: name)!) }
    }
}

@Suite struct TimelineDocumentTests {
    func compile(_ json: String, _ parameters: [String: Double] = [:]) throws(TimelineError) -> Timeline {
        try Timeline(document: TimelineDocument(json: Array(json.utf8)), parameters: parameters)
    }

    func error(_ json: String) -> String? {
        do {
            _ = try compile(json)
            return nil
        } catch { return error.description }
    }

    @Test func valueKinds() throws {
        let t = try compile(
            """
            {"name": "kinds", "animations": [
              {"layer": "a", "property": "frame", "from": {"x": 0, "y": 0, "width": 10, "height": 10},
               "to": {"x": 10, "y": "screen.h", "width": 20, "height": 20}, "duration": 1},
              {"layer": "a", "property": "tint", "from": "#ff000080", "to": "#00f", "duration": 1},
              {"layer": "a", "property": "transform", "from": {"scale": 1}, "to": {"scale": 2, "rotation": "pi"}, "duration": 1},
              {"layer": "a", "property": "blur", "from": 0, "to": 20, "duration": 1}
            ]}
            """,
            ["screen.h": 100]
        )
        let frame = t.evaluate(at: 0.5)
        #expect(frame.values[0] == .rect(x: 5, y: 50, width: 15, height: 15))
        guard case .color(let c) = frame.values[1] else {
            Issue.record("not a colour")
            return
        }
        expectClose(c.red, 0.5, 1e-12)
        expectClose(c.blue, 0.5, 1e-12)
        expectClose(c.alpha, (128.0 / 255 + 1) / 2, 1e-12)
        #expect(frame.values[2] == .transform(Transform(scaleX: 1.5, scaleY: 1.5, rotation: .pi / 2)))
        #expect(frame.values[3] == .scalar(10))
    }

    @Test func springAnimationDefaultsToItsSettlingDuration() throws {
        let t = try compile(
            """
            {"name": "s", "animations": [{"layer": "panel", "property": "y", "from": 100, "to": 0,
              "spring": {"stiffness": 100, "damping": 10}, "fill": "forwards"}]}
            """
        )
        let spring = Spring(stiffness: 100, damping: 10)
        expectClose(t.duration, spring.settlingDuration(), 1e-12)
        expectClose(t.evaluate(at: 0.2).values[0].scalarValue!, 100 - 100 * spring.value(atTime: 0.2), 1e-9)
        #expect(t.evaluate(at: t.duration).values[0] == .scalar(0))
    }

    @Test func uiKitSpringFromSeed001() throws {
        // Seed 001: usingSpringWithDamping 0.5, over the transition's duration.
        let t = try compile(
            """
            {"name": "s", "animations": [{"layer": "panel", "property": "y", "from": 600, "to": 0,
              "spring": {"duration": 0.5, "dampingRatio": 0.5, "initialVelocity": 0}, "fill": "forwards"}]}
            """
        )
        #expect(t.duration == 0.5)
        #expect(t.evaluate(at: 0.5).values[0] == .scalar(0))
    }

    @Test func fromDefaultsToTheModelValue() throws {
        let t = try compile(
            """
            {"name": "m", "layers": [{"id": "a", "initial": {"opacity": 0.4}}],
             "animations": [{"layer": "a", "property": "opacity", "to": 1, "duration": 1}]}
            """
        )
        expectClose(t.evaluate(at: 0.5).values[0].scalarValue!, 0.7, 1e-12)
        #expect(t.evaluate(at: 2).values[0] == .scalar(0.4))  // removed: the model value shows
    }

    @Test func preciseErrors() {
        #expect(
            error(#"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": 1}]}"#)
                == "animations[0].duration: is required (seconds)"
        )
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": 1, "duration": 1, "timing": "cubic-bezier(2, 0, 0, 1)"}]}"#
            )
                == "animations[0].timing: cubic-bezier(2, 0, 0, 1): x1 must be within [0, 1]"
        )
        #expect(
            error(
                #"{"name": "x", "layers": [{"id": "a"}], "animations": [{"layer": "b", "property": "p", "from": 0, "to": 1, "duration": 1}]}"#
            )
                == "animations[0].layer: unknown layer 'b' (declared: a)"
        )
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": "2 *", "duration": 1}]}"#
            )
                == "animations[0].to: '2 *' column 4: expected a number, a name or '('"
        )
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": "height", "duration": 1}]}"#
            )
                == "animations[0].to: 'height' column 1: unknown parameter 'height' (known: )"
        )
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": {"x": 1}, "duration": 1}]}"#
            )?
            .hasPrefix("animations[0].to: keys [\"x\"] name no value kind") == true
        )
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": 1, "duration": -1}]}"#
            )
                == "animations[0].duration: -1.0 is negative"
        )
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": 1, "duration": 1, "fill": "sideways"}]}"#
            )?
            .hasPrefix("animations[0].fill:") == true
        )
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": 1, "duration": 1}, {"layer": "a", "property": "p", "from": {"x": 0, "y": 0}, "to": {"x": 1, "y": 1}, "duration": 1}]}"#
            )
                == "animations[1]: animates a.p as a point, but it is a scalar"
        )
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": 1, "spring": {"stiffness": 10, "damping": 0}}]}"#
            )
                == "animations[0].spring: never settles within 3600.0 s (damping too low); give a duration"
        )
        // With the animation's own duration it compiles (docs/timeline.md: "needs an explicit duration").
        #expect(
            error(
                #"{"name": "x", "animations": [{"layer": "a", "property": "p", "from": 0, "to": 1, "duration": 2, "spring": {"stiffness": 10, "damping": 0}}]}"#
            ) == nil
        )
        #expect(error(#"{"animations": []}"#) == "missing key 'name'")
    }

    @Test func limitsAreExact() {
        func animations(_ n: Int) -> String {
            let one = #"{"layer": "a", "property": "p", "from": 0, "to": 1, "duration": 1}"#
            return #"{"name": "x", "animations": ["# + Array(repeating: one, count: n).joined(separator: ",") + "]}"
        }
        #expect(error(animations(Timeline.Limits.animations)) == nil)
        #expect(
            error(animations(Timeline.Limits.animations + 1))
                == "animations: holds 257 animations, more than the limit of 256"
        )
        let big = [UInt8](repeating: UInt8(ascii: " "), count: TimelineDocument.maximumSize + 1)
        #expect(throws: TimelineError("", "the document is 262145 bytes, more than the limit of 262144")) {
            try TimelineDocument(json: big)
        }
    }
}

@Suite struct ExpressionTests {
    func eval(_ text: String, _ parameters: [String: Double] = [:]) throws -> Double {
        try Expression(parsing: text).evaluate(parameters)
    }

    @Test func arithmetic() throws {
        #expect(try eval("1 + 2 * 3") == 7)
        #expect(try eval("(1 + 2) * 3") == 9)
        #expect(try eval("-2 - -3") == 1)
        #expect(try eval("18 * screen.height / 667", ["screen.height": 667]) == 18)
        #expect(try eval("max(1, min(5, 3)) + abs(-1) + sqrt(16)") == 8)
        expectClose(try eval("atan2(1, 1) * 4"), .pi, 1e-15)
        #expect(try eval("1.5e2") == 150)
    }

    @Test func errorsNameTheColumn() {
        func message(_ text: String) -> String? {
            do {
                _ = try Expression(parsing: text)
                return nil
            } catch { return error.description }
        }
        #expect(message("1 +") == "'1 +' column 4: expected a number, a name or '('")
        #expect(message("2 $ 3") == "'2 $ 3' column 3: unexpected '$'")
        #expect(message("foo(1)")?.hasPrefix("'foo(1)' column 1: unknown function 'foo'") == true)
        #expect(message("atan2(1)") == "'atan2(1)' column 1: atan2() takes 2 arguments, got 1")
        #expect(message("(1") == "'(1' column 3: expected ')'")
        let deep =
            String(repeating: "(", count: Expression.maximumDepth) + "1"
            + String(repeating: ")", count: Expression.maximumDepth)
        #expect(message(deep) == nil)
        let deeper = "(" + deep + ")"
        #expect(message(deeper)?.contains("nested deeper than 32 levels") == true)
    }
}
