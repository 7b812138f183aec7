import CurtainCore

/// Which frame to produce and when, on the display's `FrameGrid`: pure, time is an argument.
/// A moving presentation gets every frame of the grid; a still one (holding, paused) gets one
/// frame, then none until it moves again; a new overlay (`restart`) starts afresh.
struct FrameSchedule: Sendable {
    let grid: FrameGrid
    /// The last frame produced since the overlay changed.
    private(set) var lastFrame: Int?
    /// Whether that frame showed a still presentation: it is not produced again.
    private var lastWasStill = false

    init(fps: Double) { grid = FrameGrid(fps: fps) }

    /// An overlay appeared or went away: the next presentation gets a frame at once.
    mutating func restart() {
        lastFrame = nil
        lastWasStill = false
    }

    /// When the next frame is due, given what is shown at `now`; nil when none is (nothing
    /// shown, or a still presentation already sent).
    func nextDeadline(showing presentation: Presentation?, at now: Double) -> Double? {
        guard let presentation, presentation.isMoving || !lastWasStill || lastFrame == nil else { return nil }
        return grid.nextDeadline(after: lastFrame, from: now)
    }

    /// The frame due at `t`, for its scheduled time (missed ones are skipped), with what is
    /// shown then (`presentation(at:)`); nil when none is due. Taking it records it as produced.
    /// `notBefore`: when the transition showing began — no frame is stamped before it.
    mutating func take(
        at t: Double,
        notBefore start: Double? = nil,
        presentation: (Double) -> Presentation?
    ) -> (index: Int, time: Double, presentation: Presentation)? {
        guard let due = peek(at: t, notBefore: start, presentation: presentation) else { return nil }
        lastFrame = due.index
        lastWasStill = !due.presentation.isMoving
        return due
    }

    /// The frame `take` would give at `t`, not recorded: for a frame prepared before its deadline.
    func peek(
        at t: Double,
        notBefore start: Double? = nil,
        presentation: (Double) -> Presentation?
    ) -> (index: Int, time: Double, presentation: Presentation)? {
        guard let index = grid.due(at: t, after: lastFrame, notBefore: start) else { return nil }
        let time = grid.time(of: index)
        guard let shown = presentation(time) else { return nil }
        // A still overlay (holding, paused) is sent once, then not again until it moves.
        if !shown.isMoving, lastWasStill, lastFrame != nil { return nil }
        return (index, time, shown)
    }
}
