import Testing

@testable import CurtainCore

/// Seed 004: matched elements fly; unmatched ones leave or arrive with modifiers, cascaded.
@Suite struct HeroTests {
    let splash = [
        "logo": Hero.Frame(x: 100, y: 100, width: 80, height: 80),
        "tagline": Hero.Frame(x: 60, y: 300, width: 160, height: 20),
    ]
    let destination = [
        "logo": Hero.Frame(x: 10, y: 20, width: 40, height: 40),
        "title": Hero.Frame(x: 10, y: 80, width: 200, height: 30),
        "list": Hero.Frame(x: 10, y: 120, width: 300, height: 500),
    ]

    func value(_ t: Timeline, _ layer: String, _ property: String, at time: Double) -> Value {
        t.evaluate(at: time).values[t.slotIndex(layer: layer, property: property)!]
    }

    @Test func matchedElementsFlyBetweenTheirFrames() throws {
        let t = try Timeline(document: Hero.document(from: splash, to: destination))
        #expect(value(t, "hero.logo", "position", at: 0) == .point(x: 140, y: 140))
        #expect(value(t, "hero.logo", "position", at: 0.5) == .point(x: 30, y: 40))
        #expect(value(t, "hero.logo", "bounds", at: 0.5) == .rect(x: 0, y: 0, width: 40, height: 40))
    }

    /// The article's CascadePreprocessor: the i-th element of the sorted side starts i·delta
    /// later — matched elements count in i but are not delayed (without delayMatchedViews).
    @Test func unmatchedElementsLeaveOrArriveCascadedTopToBottom() throws {
        let t = try Timeline(
            document: Hero.document(
                from: splash,
                to: destination,
                modifiers: .init(fade: true, scale: 0.5, cascade: 0.1)
            )
        )
        // Splash side: logo (y 100) 0, tagline (y 300) 1 → leaves from 0.1 s.
        #expect(value(t, "hero.tagline", "opacity", at: 0.1) == .scalar(1))
        #expect(value(t, "hero.tagline", "opacity", at: 0.6) == .scalar(0))
        // Destination side: logo (y 20) 0, title (y 80) 1, list (y 120) 2.
        #expect(value(t, "hero.title", "opacity", at: 0.1) == .scalar(0))
        #expect(value(t, "hero.title", "opacity", at: 0.6) == .scalar(1))
        #expect(value(t, "hero.list", "opacity", at: 0.2) == .scalar(0))
        #expect(value(t, "hero.list", "opacity", at: 0.75) == .scalar(1))
        #expect(value(t, "hero.list", "scale", at: 0.2) == .scalar(0.5))
        #expect(value(t, "hero.logo", "position", at: 0.5) == .point(x: 30, y: 40))  // matched: at once
        #expect(t.duration == 0.7)  // the longest animation
    }

    func start(_ t: Timeline, _ layer: String, _ property: String = "opacity") -> Double {
        t.tracks.filter { t.slots[$0.slot].layer == layer && t.slots[$0.slot].property == property }.map(
            \.animation.beginTime
        ).min()!
    }

    @Test(arguments: [
        (Hero.CascadeDirection.topToBottom, ["logo", "title", "list"]),
        (.bottomToTop, ["list", "title", "logo"]),
        (.leftToRight, ["logo", "title", "list"]),  // x 10, 10, 10: ties by y
        (.rightToLeft, ["list", "title", "logo"]),  // right edges 310, 210, 50
    ])
    func cascadeInEveryDirection(direction: Hero.CascadeDirection, order: [String]) throws {
        let destination = self.destination.mapValues { Hero.Element($0) }
        let t = try Timeline(
            document: Hero.document(
                from: [:],
                to: destination,
                modifiers: .init(cascade: 0.1, cascadeDirection: direction)
            )
        )
        for (i, id) in order.enumerated() {
            #expect(abs(start(t, "hero.\(id)") - 0.1 * Double(i)) < 1e-12, "\(direction) \(id)")
        }
    }

    @Test func radialCascadesFromTheCentreOutwardsAndInverse() throws {
        let ring = [
            "centre": Hero.Frame(x: 95, y: 95, width: 10, height: 10),
            "near": Hero.Frame(x: 125, y: 95, width: 10, height: 10),
            "far": Hero.Frame(x: 195, y: 95, width: 10, height: 10),
        ]
        let centre = (x: 100.0, y: 100.0)
        let radial = try Timeline(
            document: Hero.document(
                from: [:],
                to: ring,
                modifiers: .init(cascade: 0.1, cascadeDirection: .radial, cascadeCentre: centre)
            )
        )
        #expect(
            start(radial, "hero.centre") == 0 && start(radial, "hero.near") == 0.1 && start(radial, "hero.far") == 0.2
        )
        let inverse = try Timeline(
            document: Hero.document(
                from: [:],
                to: ring,
                modifiers: .init(cascade: 0.1, cascadeDirection: .inverseRadial, cascadeCentre: centre)
            )
        )
        #expect(start(inverse, "hero.far") == 0 && start(inverse, "hero.centre") == 0.2)
    }

    /// `delayMatchedViews`: matched elements wait for the whole cascade (count·delta).
    @Test func delayMatchedViewsWaitsForTheCascade() throws {
        let t = try Timeline(
            document: Hero.document(
                from: splash,
                to: destination,
                modifiers: .init(cascade: 0.1, delayMatchedViews: true)
            )
        )
        #expect(abs(start(t, "hero.logo", "position") - 0.3) < 1e-12)  // 3 destination elements
        #expect(value(t, "hero.logo", "position", at: 0.3) == .point(x: 140, y: 140))
        #expect(value(t, "hero.logo", "position", at: 0.8) == .point(x: 30, y: 40))
        #expect(t.duration == 0.8)
    }

    /// Per-element modifiers (`heroModifiers`): fade, scale, translate, delay, duration, curve.
    @Test func perElementModifiers() throws {
        var to = destination.mapValues { Hero.Element($0) }
        to["title"]!.modifiers = .init(
            fade: false,
            scale: 0.25,
            translateX: 0,
            translateY: 40,
            delay: 0.05,
            duration: 0.2,
            timing: "linear"
        )
        let t = try Timeline(document: Hero.document(from: [:], to: to, modifiers: .init(cascade: 0)))
        #expect(t.slotIndex(layer: "hero.title", property: "opacity") == nil)  // no fade
        #expect(value(t, "hero.title", "scale", at: 0.05) == .scalar(0.25))
        #expect(value(t, "hero.title", "scale", at: 0.15) == .scalar(0.625))  // linear, half-way through 0.2 s
        #expect(value(t, "hero.title", "position", at: 0.05) == .point(x: 110, y: 135))  // 40 pt below its centre
        #expect(value(t, "hero.title", "position", at: 0.25) == .point(x: 110, y: 95))
        #expect(value(t, "hero.list", "opacity", at: 0.5) == .scalar(1))  // the others keep the defaults
        #expect(t.duration == 0.5)
        // A matched element takes the destination's duration and curve.
        var pair = (from: ["logo": Hero.Element(splash["logo"]!)], to: ["logo": Hero.Element(destination["logo"]!)])
        pair.to["logo"]!.modifiers.duration = 1.5
        #expect(try Timeline(document: Hero.document(from: pair.from, to: pair.to)).duration == 1.5)
    }

    /// Modifiers in JSON (a scene's `heroModifiers`; the same parser serves an app's report).
    @Test func modifiersFromJSON() throws {
        func scene(_ modifiers: String) throws -> Scene {
            try Scene(
                json: Array(
                    #"{"name": "s", "layers": [{"id": "a", "bounds": [0, 0, 1, 1], "heroID": "a", "heroModifiers": \#(modifiers)}]}"#
                        .utf8
                )
            )
        }
        let m = try scene(
            #"{"fade": false, "scale": 0.5, "translate": {"y": 20}, "delay": 0.1, "duration": 0.3, "timing": "easeOut"}"#
        ).layers[0].heroModifiers
        #expect(
            m
                == .init(
                    fade: false,
                    scale: 0.5,
                    translateX: 0,
                    translateY: 20,
                    delay: 0.1,
                    duration: 0.3,
                    timing: "easeOut"
                )
        )
        func error(_ text: String) -> String? {
            do {
                _ = try scene(text)
                return nil
            } catch { return "\(error)" }
        }
        #expect(error(#"{"spin": 1}"#)?.hasPrefix("layers[0].heroModifiers.spin: is not a modifier") == true)
        #expect(error(#"{"timing": "wobbly"}"#)?.hasPrefix("layers[0].heroModifiers.timing:") == true)
        #expect(error(#"{"duration": -1}"#) == "layers[0].heroModifiers.duration: -1.0 is not within 0…3600.0 s")
        #expect(error(#"{"duration": 3600}"#) == nil)
        #expect(error(#"{"duration": 3600.001}"#) != nil)
    }

    /// The splash side comes from the scene: layers with a heroID, at their frames.
    @Test func splashElementsComeFromTheScene() throws {
        let scene = try Scene(
            json: Array(
                """
                {"name": "s", "layers": [
                  {"id": "splash", "bounds": [0, 0, 375, 667], "sublayers": [
                    {"id": "logo", "heroID": "logo", "bounds": [0, 0, 100, 50], "position": [187.5, 300],
                     "heroModifiers": {"scale": 0.5}},
                    {"id": "box", "bounds": [0, 0, 200, 200], "position": [100, 500], "sublayers": [
                      {"id": "caption", "heroID": "caption", "bounds": [0, 0, 40, 10], "position": [20, 5]}]}
                  ]}
                ]}
                """.utf8
            )
        )
        let elements = Hero.elements(in: scene)
        #expect(
            elements["logo"]
                == Hero.Element(Hero.Frame(x: 137.5, y: 275, width: 100, height: 50), modifiers: .init(scale: 0.5))
        )
        #expect(elements["caption"]?.frame == Hero.Frame(x: 0, y: 400, width: 40, height: 10))
        #expect(scene.layer("logo")?.animatedBy == "hero.logo")
        #expect(throws: SceneError("layers[0].heroModifiers", "belongs to a hero element; add a heroID")) {
            try Scene(
                json: Array(
                    #"{"name": "s", "layers": [{"id": "a", "bounds": [0, 0, 1, 1], "heroModifiers": {}}]}"#.utf8
                )
            )
        }
        #expect(throws: SceneError("layers[1].heroID", "'x' is already the heroID of layers[0]")) {
            try Scene(
                json: Array(
                    #"{"name": "s", "layers": [{"id": "a", "bounds": [0, 0, 1, 1], "heroID": "x"}, {"id": "b", "bounds": [0, 0, 1, 1], "heroID": "x"}]}"#
                        .utf8
                )
            )
        }
    }

    @Test func theShippedFormHasNoMatches() throws {
        let t = try Timeline(document: Presets.document(named: "hero")!)
        #expect(t.slotIndex(layer: "hero.logo", property: "opacity") != nil)  // the splash logo leaves
        #expect(value(t, "splash", "opacity", at: 0.5) == .scalar(0))
    }
}
