@testable import CurtainCore
import Testing

/// Each seed's transition, checked at its ends and in its characteristic middle.
@Suite struct SeedTransitionTests {
    func timeline(_ name: String, _ parameters: [String: Double] = [:]) throws -> Timeline {
        try Timeline(document: Presets.document(named: name)!, parameters: parameters)
    }

    func value(_ t: Timeline, _ layer: String, _ property: String, at time: Double) -> Value {
        t.evaluate(at: time).values[t.slotIndex(layer: layer, property: property)!]
    }

    @Test func slideComesInFromTheChosenEdgeOnASpring() throws {
        let t = try timeline("slide", ["screen.width": 1920, "screen.height": 1080, "direction.x": -1, "direction.y": 0])
        #expect(value(t, "window", "translationX", at: 0) == .scalar(-1920))
        #expect(value(t, "window", "translationY", at: 0) == .scalar(0))
        #expect(value(t, "window", "translationX", at: t.duration) == .scalar(0))
        // Underdamped (ratio 0.8): it passes the edge before it settles.
        let overshoot = stride(from: 0.0, through: 1.0, by: 0.01).map { value(t, "window", "translationX", at: $0).component(0) }.max()!
        #expect(overshoot > 0)
    }

    @Test func logoMovesToTheFrameTheDestinationReports() throws {
        let t = try timeline("logo-move", ["element.logo.x": 40, "element.logo.y": 60, "element.logo.width": 32, "element.logo.height": 32])
        #expect(value(t, "logo", "position", at: 0) == .point(x: 375 / 2, y: 667 / 2))
        #expect(value(t, "logo", "position", at: 0.5) == .point(x: 40, y: 60))
        #expect(value(t, "logo", "bounds", at: 0.5) == .rect(x: 0, y: 0, width: 32, height: 32))
        let still = try timeline("logo-move")   // nothing reported: the logo stays where it is
        #expect(value(still, "logo", "position", at: 0.25) == value(still, "logo", "position", at: 0))
    }

    @Test func panelRisesWhileTheBackgroundBlursAndStaysVisible() throws {
        let t = try timeline("panel-blur", ["screen.height": 1080])
        #expect(value(t, "window", "translationY", at: 0) == .scalar(1080))
        #expect(value(t, "backdrop", "blurRadius", at: 0.5) == .scalar(20))
        #expect(value(t, "backdrop", "opacity", at: 0.5) == .scalar(1))
    }

    @Test func fadeIsThePlainCrossFade() throws {
        let t = try timeline(Presets.reducedMotionReveal)
        #expect(value(t, "splash", "opacity", at: 0.15).component(0) > 0 && value(t, "splash", "opacity", at: 0.3) == .scalar(0))
        #expect(value(t, "window", "opacity", at: 0.3) == .scalar(1))
        #expect(try timeline(Presets.reducedMotionAppear).duration == 0.2)
    }
}
