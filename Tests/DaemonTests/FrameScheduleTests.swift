import CurtainCore
import Testing

@testable import CurtainDaemon

/// Frame scheduling is pure: the presentation and the time are arguments.
@Suite struct FrameScheduleTests {
    static func shown(moving: Bool) -> Presentation {
        Presentation(launch: LaunchID(1), transition: .appear, time: 0, isMoving: moving)
    }

    @Test func aMovingOverlayGetsEveryFrameOnTheGridAndLateWakeUpsSkip() {
        var schedule = FrameSchedule(fps: 10)
        #expect(schedule.nextDeadline(showing: Self.shown(moving: true), at: 0) == 0)  // at once
        #expect(schedule.take(at: 0) { _ in Self.shown(moving: true) }?.index == 0)
        #expect(schedule.take(at: 0.05) { _ in Self.shown(moving: true) } == nil)  // not yet due
        #expect(schedule.nextDeadline(showing: Self.shown(moving: true), at: 0.05) == 0.1)
        let late = schedule.take(at: 0.45) { _ in Self.shown(moving: true) }
        #expect(late?.index == 4 && late?.time == 0.4)  // 1 to 3 skipped
        #expect(schedule.nextDeadline(showing: nil, at: 0.45) == nil)  // nothing shown
    }

    @Test func aStillOverlayGetsOneFrameUntilItMovesOrTheOverlayChanges() {
        var schedule = FrameSchedule(fps: 10)
        #expect(schedule.take(at: 0) { _ in Self.shown(moving: false) }?.index == 0)
        #expect(schedule.nextDeadline(showing: Self.shown(moving: false), at: 0.5) == nil)
        #expect(schedule.take(at: 0.5) { _ in Self.shown(moving: false) } == nil)
        // It moves again (resumed): the next frame on the grid.
        #expect(schedule.nextDeadline(showing: Self.shown(moving: true), at: 0.5) == 0.1)
        #expect(schedule.take(at: 0.5) { _ in Self.shown(moving: true) }?.index == 5)
        schedule.restart()
        #expect(schedule.lastFrame == nil)
        #expect(schedule.nextDeadline(showing: Self.shown(moving: false), at: 0.72) == 0.7)
    }
}
