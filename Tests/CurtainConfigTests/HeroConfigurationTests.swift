import CurtainCore
import Testing

@testable import CurtainConfig

/// Seed 004's modifiers per element (`[transitions.modifiers.ID]`) and seed 001's edge per app
/// (`[[apps]] direction`), from the configuration to the compiled reveal.
@Suite struct HeroConfigurationTests {
    func errors(_ text: String) -> [String] {
        do {
            _ = try Configuration(toml: text, file: "c.toml")
            return []
        } catch { return error.errors.map(\.description) }
    }

    @Test func modifiersAreReadPerElement() throws {
        let c = try Configuration(
            toml: """
                [transitions]
                reveal = "hero"
                [transitions.modifiers.logo]
                fade = false
                scale = 0.5
                translate = { x = 0, y = 40 }
                delay = 0.8
                duration = 1
                timing = "easeOut"
                """,
            file: "c.toml"
        )
        #expect(
            c.transitions.modifiers == [
                "logo": Hero.ElementModifiers(
                    fade: false,
                    scale: 0.5,
                    translateX: 0,
                    translateY: 40,
                    delay: 0.8,
                    duration: 1,
                    timing: "easeOut"
                )
            ]
        )
        // The configured delay and duration shape the reveal once the app reports the logo.
        let compiled = try ConfigurationSnapshot(c).transitions.get()
        let rebuilt = try compiled.with(elements: ["logo": Hero.Element(Hero.Frame(x: 0, y: 0, width: 10, height: 10))])
        #expect(abs(rebuilt.reveal.length - 1.8) < 1e-9)
        // The app's own modifiers win, field by field (its delay; the configured duration stays).
        let reported = try compiled.with(elements: [
            "logo": Hero.Element(
                Hero.Frame(x: 0, y: 0, width: 10, height: 10),
                modifiers: Hero.ElementModifiers(delay: 0.1)
            )
        ])
        #expect(abs(reported.reveal.length - 1.1) < 1e-9)
    }

    @Test func badModifiersAreLocated() {
        #expect(
            errors("[transitions.modifiers.logo]\nscale = \"big\"\n") == [
                "c.toml:2:1: transitions.modifiers.logo.scale: must be a number"
            ]
        )
        #expect(
            errors("[transitions.modifiers.logo]\nblur = 3\n")
                == [
                    "c.toml:2:1: transitions.modifiers.logo.blur: is not a modifier (modifiers: delay, duration, fade, scale, timing, translate)"
                ]
        )
        #expect(
            errors("[transitions.modifiers.logo]\ndelay = 3600.5\n") == [
                "c.toml:2:1: transitions.modifiers.logo.delay: 3600.5 is not within 0…3600.0 s"
            ]
        )
        #expect(
            errors("[transitions.modifiers.logo]\ntiming = \"wobbly\"\n").first?.hasPrefix(
                "c.toml:2:1: transitions.modifiers.logo.timing: "
            ) == true
        )
        #expect(
            errors("[transitions.modifiers.\"a b\"]\nfade = true\n").first?.hasSuffix(
                "'a b' is not an element id (1 to 64 of A-Z a-z 0-9 _ -)"
            ) == true
        )
    }

    /// At most Configuration.maximumModifiers (32) elements: 32 pass, 33 are refused.
    @Test func modifiersLimitAtTheBoundary() {
        func toml(_ n: Int) -> String {
            "[transitions.modifiers]\n" + (0..<n).map { "e\($0) = { fade = true }\n" }.joined()
        }
        #expect(errors(toml(Configuration.maximumModifiers)) == [])
        #expect(
            errors(toml(Configuration.maximumModifiers + 1)) == [
                "c.toml:1:1: transitions.modifiers: has 33 elements, more than the limit of 32"
            ]
        )
    }

    /// An app's own edge: its launches slide in from there; other apps keep the configured one.
    @Test func anAppSlidesFromItsOwnEdge() throws {
        let c = try Configuration(
            toml: """
                [[apps]]
                name = "left"
                direction = "left"
                [[apps]]
                name = "plain"
                [transitions]
                reveal = "slide"
                """,
            file: "c.toml"
        )
        #expect(c.apps.map(\.direction) == ["left", nil])
        let snapshot = ConfigurationSnapshot(c)
        func startX(_ app: String?) throws -> Value? {
            let reveal = try snapshot.transitions(forApp: app).get().reveal
            return reveal.timeline.evaluate(at: 0).values[
                reveal.timeline.slotIndex(layer: "window", property: "translationX")!
            ]
        }
        #expect(try startX("left") == .scalar(-1920))  // the configured screen's width
        #expect(try startX("plain") == .scalar(0))  // the default edge: bottom
        #expect(try startX(nil) == .scalar(0))
        // Reduced motion: a cross-fade for every app.
        let reduced = ConfigurationSnapshot(
            try Configuration(
                toml:
                    "[display]\nreduced_motion = true\n[[apps]]\nname = \"left\"\ndirection = \"left\"\n[transitions]\nreveal = \"slide\"\n",
                file: "c.toml"
            )
        )
        #expect(try reduced.transitions(forApp: "left").get().revealDocument.name == "fade")
        #expect(
            errors("[[apps]]\nname = \"a\"\ndirection = \"up\"\n[transitions]\nreveal = \"slide\"\n")
                == ["c.toml:3:1: apps[0].direction: 'up' is not an edge (bottom, top, left, right)"]
        )
        #expect(
            errors("[[apps]]\nname = \"a\"\ndirection = \"top\"\n")
                == ["c.toml:3:1: apps[0].direction: the reveal 'yula-mask-reveal' has no direction (slide has)"]
        )
    }
}

extension HeroConfigurationTests {
    /// Seed 004: the splash side of hero is the scene's heroID layers (scenes/hero), not a
    /// fixed 88 pt logo: the title and tagline leave too, the tagline with its own modifiers,
    /// and the configured modifiers apply to them.
    @Test func heroTakesTheSplashElementsFromTheScene() throws {
        let c = try Configuration(
            toml: "[transitions]\nreveal = \"hero\"\n[transitions.modifiers.title]\ndelay = 0.7\n",
            file: "c.toml"
        )
        let compiled = try ConfigurationSnapshot(c).transitions.get()
        #expect(Set(compiled.splash.keys) == ["logo", "title", "tagline"])
        // the 1920×1080 screen
        #expect(compiled.splash["logo"]?.frame == Hero.Frame(x: 960 - 44, y: 540 - 44, width: 88, height: 88))
        #expect(
            compiled.splash["tagline"]?.modifiers
                == Hero.ElementModifiers(fade: true, scale: 0.5, translateX: 0, translateY: 40)
        )
        // Before the app reports: the scene's elements leave (the title after its configured delay).
        #expect(
            compiled.reveal.keys.contains("hero.tagline.scale") && compiled.reveal.keys.contains("hero.title.opacity")
        )
        #expect(compiled.reveal.length > 0.7)
        let rebuilt = try compiled.with(elements: [
            "logo": Hero.Element(Hero.Frame(x: 10, y: 20, width: 40, height: 40))
        ])
        let index = try #require(rebuilt.reveal.keys.firstIndex(of: "hero.logo.position"))
        #expect(rebuilt.reveal.timeline.evaluate(at: 0).values[index] == .point(x: 960, y: 540))
        #expect(rebuilt.reveal.timeline.evaluate(at: rebuilt.reveal.length).values[index] == .point(x: 30, y: 40))
    }
}
