@testable import CurtainCore
import Testing

/// Seed 004: matched elements fly; unmatched ones leave or arrive with modifiers, cascaded.
@Suite struct HeroTests {
    let splash = ["logo": Hero.Frame(x: 100, y: 100, width: 80, height: 80), "tagline": Hero.Frame(x: 60, y: 300, width: 160, height: 20)]
    let destination = ["logo": Hero.Frame(x: 10, y: 20, width: 40, height: 40),
                       "title": Hero.Frame(x: 10, y: 80, width: 200, height: 30), "list": Hero.Frame(x: 10, y: 120, width: 300, height: 500)]

    func value(_ t: Timeline, _ layer: String, _ property: String, at time: Double) -> Value {
        t.evaluate(at: time).values[t.slotIndex(layer: layer, property: property)!]
    }

    @Test func matchedElementsFlyBetweenTheirFrames() throws {
        let t = try Timeline(document: Hero.document(from: splash, to: destination))
        #expect(value(t, "hero.logo", "position", at: 0) == .point(x: 140, y: 140))
        #expect(value(t, "hero.logo", "position", at: 0.5) == .point(x: 30, y: 40))
        #expect(value(t, "hero.logo", "bounds", at: 0.5) == .rect(x: 0, y: 0, width: 40, height: 40))
    }

    @Test func unmatchedElementsLeaveOrArriveCascadedTopToBottom() throws {
        let t = try Timeline(document: Hero.document(from: splash, to: destination, modifiers: .init(fade: true, scale: 0.5, cascade: 0.1)))
        #expect(value(t, "hero.tagline", "opacity", at: 0) == .scalar(1))
        #expect(value(t, "hero.tagline", "opacity", at: 0.5) == .scalar(0))
        // title (y 80) arrives first, list (y 120) 0.1 s later.
        #expect(value(t, "hero.title", "opacity", at: 0) == .scalar(0))
        #expect(value(t, "hero.list", "opacity", at: 0.1) == .scalar(0))
        #expect(value(t, "hero.list", "opacity", at: 0.6) == .scalar(1))
        #expect(value(t, "hero.list", "scale", at: 0.1) == .scalar(0.5))
        #expect(t.duration == 0.6)
    }

    @Test func theShippedFormHasNoMatches() throws {
        let t = try Timeline(document: Presets.document(named: "hero")!)
        #expect(t.slotIndex(layer: "hero.logo", property: "opacity") != nil)   // the splash logo leaves
        #expect(value(t, "splash", "opacity", at: 0.5) == .scalar(0))
    }
}
