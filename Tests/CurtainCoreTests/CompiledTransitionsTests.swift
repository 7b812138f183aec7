import CurtainCore
import Testing

/// A configuration's transitions are compiled once; a launch's reveal is rebuilt only for
/// the elements its app reports.
@Suite struct CompiledTransitionsTests {
    @Test func theRevealIsRebuiltForReportedElementsAndTheAppearStays() throws {
        let compiled = try CompiledTransitions(appear: Presets.document(named: "fade")!, reveal: Presets.document(named: "hero")!,
                                               screenWidth: 375, screenHeight: 667)
        #expect(compiled.appear.keys == compiled.appear.timeline.slots.map(\.key))
        #expect(compiled.appear.length == compiled.appear.timeline.duration)
        let rebuilt = try compiled.with(elements: ["logo": Hero.Frame(x: 10, y: 20, width: 40, height: 40)])
        #expect(rebuilt.appear.keys == compiled.appear.keys)
        #expect(rebuilt.reveal.keys.contains("hero.logo.position"))
        let end = rebuilt.reveal.timeline.evaluate(at: rebuilt.reveal.length)
        let index = try #require(rebuilt.reveal.keys.firstIndex(of: "hero.logo.position"))
        #expect(end.values[index] == .point(x: 30, y: 40))
    }
}
