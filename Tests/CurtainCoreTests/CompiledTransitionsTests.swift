import CurtainCore
import Testing

/// A configuration's transitions are compiled once; a launch's reveal is rebuilt only for
/// the elements its app reports.
@Suite struct CompiledTransitionsTests {
    @Test func theRevealIsRebuiltForReportedElementsAndTheAppearStays() throws {
        let compiled = try CompiledTransitions(
            appear: Presets.document(named: "fade")!,
            reveal: Presets.document(named: "hero")!,
            screenWidth: 375,
            screenHeight: 667
        )
        #expect(compiled.appear.keys == compiled.appear.timeline.slots.map(\.key))
        #expect(compiled.appear.length == compiled.appear.timeline.duration)
        let rebuilt = try compiled.with(elements: ["logo": Hero.Frame(x: 10, y: 20, width: 40, height: 40)])
        #expect(rebuilt.appear.keys == compiled.appear.keys)
        #expect(rebuilt.reveal.keys.contains("hero.logo.position"))
        let end = rebuilt.reveal.timeline.evaluate(at: rebuilt.reveal.length)
        let index = try #require(rebuilt.reveal.keys.firstIndex(of: "hero.logo.position"))
        #expect(end.values[index] == .point(x: 30, y: 40))
    }

    /// Seed 002: the app hides the elements its reveal flies a copy onto (`element.ID.*`
    /// parameters): logo-move's `logo`; a reveal without such parameters hides nothing.
    @Test func theRevealNamesTheElementsTheAppHides() throws {
        func hidden(_ reveal: String) throws -> [String] {
            try CompiledTransitions(
                appear: Presets.document(named: "fade-in")!,
                reveal: Presets.document(named: reveal)!,
                screenWidth: 375,
                screenHeight: 667
            ).hiddenElements
        }
        #expect(try hidden("logo-move") == ["logo"])
        #expect(try hidden("yula-mask-reveal") == [])
        #expect(try hidden("slide") == [])
        let document = try TimelineDocument(
            json: Array(
                #"{"name": "t", "animations": [], "parameters": [{"name": "element.b.x", "default": 0}, {"name": "element.a.width", "default": 0}, {"name": "element..x", "default": 0}, {"name": "elements.c.x", "default": 0}, {"name": "element.a.y", "default": 0}]}"#
                    .utf8
            )
        )
        #expect(CompiledTransitions.elementIDs(declaredBy: document) == ["a", "b"])
    }
}
