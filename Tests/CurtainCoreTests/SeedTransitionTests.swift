import Testing

@testable import CurtainCore

#if canImport(Glibc)
import Glibc
#endif

/// Each seed's transition, checked at its ends and in its characteristic middle.
@Suite struct SeedTransitionTests {
    func timeline(_ name: String, _ parameters: [String: Double] = [:]) throws -> Timeline {
        try Timeline(document: Presets.document(named: name)!, parameters: parameters)
    }

    func value(_ t: Timeline, _ layer: String, _ property: String, at time: Double) -> Value {
        t.evaluate(at: time).values[t.slotIndex(layer: layer, property: property)!]
    }

    @Test func slideComesInFromTheChosenEdgeOnASpring() throws {
        let t = try timeline(
            "slide",
            ["screen.width": 1920, "screen.height": 1080, "direction.x": -1, "direction.y": 0]
        )
        #expect(value(t, "window", "translationX", at: 0) == .scalar(-1920))
        #expect(value(t, "window", "translationY", at: 0) == .scalar(0))
        #expect(value(t, "window", "translationX", at: t.duration) == .scalar(0))
        // Underdamped: it passes the edge before it settles.
        let overshoot = stride(from: 0.0, through: 1.0, by: 0.01).map {
            value(t, "window", "translationX", at: $0).component(0)
        }.max()!
        #expect(overshoot > 0)
    }

    /// Seed 001: `usingSpringWithDamping: 0.5, initialSpringVelocity: 0` over 1 s. The slide
    /// follows exactly that spring (Spring(duration: 1, dampingRatio: 0.5)), overshoots by its
    /// closed-form first peak, e^(−ζπ/√(1−ζ²)) = 16.3 % of the distance, and lasts 1 s.
    @Test func slideUsesTheArticlesSpring() throws {
        let t = try timeline("slide")  // from the bottom, 667 pt
        #expect(t.duration == 1)
        let spring = Spring(duration: 1, dampingRatio: 0.5, initialVelocity: 0)
        for time in stride(from: 0.0, through: 0.95, by: 0.05) {
            let expected = 667 * (1 - spring.value(atTime: time))
            #expect(abs(value(t, "window", "translationY", at: time).component(0) - expected) < 1e-9, "t=\(time)")
        }
        let peak = stride(from: 0.0, through: 1.0, by: 0.001).map {
            -value(t, "window", "translationY", at: $0).component(0)
        }.max()!
        let zeta = 0.5
        let firstPeak = 667 * exp(-zeta * .pi / (1 - zeta * zeta).squareRoot())
        #expect(abs(peak - firstPeak) < 0.5, "peak \(peak) pt, closed form \(firstPeak) pt")
    }

    /// Seed 001: `fromCtrl.view.alpha = 0.5` inside the spring block, `= 1` at completion.
    @Test func slideDimsThePresenterToHalfAndBack() throws {
        let t = try timeline("slide")
        let spring = Spring(duration: 1, dampingRatio: 0.5, initialVelocity: 0)
        #expect(value(t, "splash", "opacity", at: 0) == .scalar(1))
        for time in [0.1, 0.3, 0.5, 0.9] {
            #expect(
                abs(value(t, "splash", "opacity", at: time).component(0) - (1 - 0.5 * spring.value(atTime: time)))
                    < 1e-9
            )
        }
        #expect(abs(value(t, "splash", "opacity", at: 0.999).component(0) - 0.5) < 0.001)
        #expect(value(t, "splash", "opacity", at: 1) == .scalar(1))
    }

    @Test(arguments: [("bottom", 0.0, 667.0), ("top", 0.0, -667.0), ("left", -375.0, 0.0), ("right", 375.0, 0.0)])
    func slideFromEveryEdge(edge: String, x: Double, y: Double) throws {
        let t = try timeline("slide", Presets.slideDirection(edge)!)
        #expect(value(t, "window", "translationX", at: 0) == .scalar(x))
        #expect(value(t, "window", "translationY", at: 0) == .scalar(y))
        #expect(Presets.slideDirection("diagonal") == nil)
    }

    /// Seed 001's flip dismiss: 3 s, keyframes of a third each.
    @Test func flipHasThreeThirds() throws {
        let t = try timeline("flip")
        #expect(t.duration == 3)
        // Third 1: the snapshot shrinks to the card; nothing turns.
        #expect(value(t, "splash", "scaleX", at: 0) == .scalar(1))
        #expect(abs(value(t, "splash", "scaleX", at: 1).component(0) - 0.6) < 1e-12)
        #expect(abs(value(t, "splash", "scaleY", at: 1).component(0) - 0.4) < 1e-12)
        #expect(value(t, "splash", "rotationY", at: 0.99) == .scalar(0))
        // Third 2: the snapshot turns to π/2; the window is still edge-on at −π/2.
        #expect(abs(value(t, "splash", "rotationY", at: 2).component(0) - .pi / 2) < 1e-12)
        #expect(abs(value(t, "window", "rotationY", at: 1.99).component(0) + .pi / 2) < 1e-12)
        // Third 3: the window turns in.
        #expect(value(t, "window", "rotationY", at: 3) == .scalar(0))
        #expect(value(t, "window", "m34", at: 1.5) == .scalar(-0.002))
        #expect(value(t, "splash", "cornerRadius", at: 0) == .scalar(25))
        // The app may name the destination frame (element.card).
        let card = try timeline("flip", ["element.card.x": 100, "element.card.y": 200, "element.card.width": 75])
        #expect(value(card, "splash", "position", at: 1) == .point(x: 100, y: 200))
        #expect(value(card, "splash", "scaleX", at: 1) == .scalar(0.2))
    }

    @Test func logoMovesToTheFrameTheDestinationReports() throws {
        let t = try timeline(
            "logo-move",
            ["element.logo.x": 40, "element.logo.y": 60, "element.logo.width": 32, "element.logo.height": 32]
        )
        #expect(value(t, "logo", "position", at: 0) == .point(x: 375 / 2, y: 667 / 2))
        #expect(value(t, "logo", "position", at: 0.7) == .point(x: 40, y: 60))
        #expect(value(t, "logo", "bounds", at: 0.7) == .rect(x: 0, y: 0, width: 32, height: 32))
        let still = try timeline("logo-move")  // nothing reported: the logo stays where it is
        #expect(value(still, "logo", "position", at: 0.5) == value(still, "logo", "position", at: 0))
    }

    /// Seed 002: `promiseWithDuration:0.35 delay:0.35 … CurveEaseInOut`; the copy is removed
    /// at the end.
    @Test func logoMoveWaitsThenFliesForTheArticlesTimes() throws {
        let t = try timeline("logo-move", ["element.logo.x": 40, "element.logo.y": 60])
        #expect(t.duration == 0.7)
        #expect(value(t, "logo", "position", at: 0.35) == .point(x: 375 / 2, y: 667 / 2))
        #expect(value(t, "splash", "opacity", at: 0.35) == .scalar(1))
        // Half-way through the flight, easeInEaseOut is symmetric: exactly half-way there.
        let mid = value(t, "logo", "position", at: 0.525)
        #expect(abs(mid.component(0) - (375.0 / 2 + 40) / 2) < 1e-9)
        #expect(abs(value(t, "splash", "opacity", at: 0.525).component(0) - 0.5) < 1e-9)
        #expect(value(t, "splash", "opacity", at: 0.7) == .scalar(0))
        #expect(value(t, "logo", "hidden", at: 0.699) == .scalar(0))
        #expect(value(t, "logo", "hidden", at: 0.7) == .scalar(1))
    }

    /// Seed 003: 2.5 s; the presenter goes to 50 % and stays; the background blurs gradually.
    @Test func panelRisesWhileTheBackgroundBlursAndStaysVisible() throws {
        let t = try timeline("panel-blur", ["screen.height": 1080])
        #expect(t.duration == 2.5)
        #expect(value(t, "window", "translationY", at: 0) == .scalar(1080))
        #expect(value(t, "window", "translationY", at: 2.5) == .scalar(0))
        #expect(abs(value(t, "window", "translationY", at: 1.25).component(0) - 540) < 1e-9)
        #expect(value(t, "backdrop", "blurRadius", at: 0) == .scalar(0))
        #expect(value(t, "backdrop", "blurRadius", at: 2.5) == .scalar(20))
        #expect(value(t, "backdrop", "opacity", at: 2.5) == .scalar(0.5))
        #expect(value(t, "backdrop", "opacity", at: 100) == .scalar(0.5))  // and stays
    }

    /// Transform's 3-D parts: written, interpolated, projected; and how a renderer reads them.
    @Test func rotationYAndPerspective() throws {
        let document = try TimelineDocument(
            json: Array(
                """
                {"name": "t", "animations": [{"layer": "card", "property": "transform", "from": {"rotationY": 0, "m34": 0},
                  "to": {"rotationY": 1, "m34": -0.002, "scale": 2}, "duration": 1}]}
                """.utf8
            )
        )
        let t = try Timeline(document: document)
        #expect(
            value(t, "card", "transform", at: 0.5)
                == .transform(Transform(scaleX: 1.5, scaleY: 1.5, rotationY: 0.5, m34: -0.001))
        )
        #expect(
            Value.componentNames(.transform) == [
                "scaleX", "scaleY", "rotation", "translationX", "translationY", "rotationY", "m34",
            ]
        )
        // x' = x·cos θ / w, y' = y / w, w = 1 − m34·x·sin θ.
        let flip = Transform(rotationY: .pi / 3, m34: -0.002)
        let p = flip.project(x: 100, y: 50)!
        let w = 1 + 0.002 * 100 * (3.0).squareRoot() / 2
        #expect(abs(p.x - 100 * 0.5 / w) < 1e-12 && abs(p.y - 50 / w) < 1e-12)
        #expect(Transform(rotationY: .pi / 2).project(x: 100, y: 5)!.x.magnitude < 1e-12)  // edge-on
        #expect(Transform(rotationY: -.pi / 2, m34: -0.01).project(x: 100, y: 0) == nil)  // at the eye
        #expect(!Transform.identity.hasDepth && flip.hasDepth)
    }

    @Test func blurRadiusLimit() throws {
        let layer = SceneLayer(id: "b", bounds: .init(x: 0, y: 0, width: 1, height: 1), position: .init(x: 0, y: 0))
        func blur(_ r: Double) -> Double { LayerPresentation(layer, values: ["b.blurRadius": .scalar(r)]).blurRadius }
        #expect(blur(LayerPresentation.maximumBlurRadius) == 250)
        #expect(blur(250.5) == 250)  // one past the limit: clamped
        #expect(blur(-1) == 0 && blur(.nan) == 0 && blur(20) == 20)
        let turned = LayerPresentation(layer, values: ["b.rotationY": .scalar(0.3), "b.m34": .scalar(-0.002)]).transform
        #expect(turned.rotationY == 0.3 && turned.m34 == -0.002)
    }

    @Test func fadeIsThePlainCrossFade() throws {
        let t = try timeline(Presets.reducedMotionReveal)
        #expect(
            value(t, "splash", "opacity", at: 0.15).component(0) > 0
                && value(t, "splash", "opacity", at: 0.3) == .scalar(0)
        )
        #expect(value(t, "window", "opacity", at: 0.3) == .scalar(1))
        #expect(try timeline(Presets.reducedMotionAppear).duration == 0.2)
    }
}
