/// The display's frame deadlines: frame k is due at k / fps seconds of daemon time — absolute
/// deadlines, like vsync, so a late wake-up never shifts the frames after it. After an
/// overrun only the current frame is produced: missed ones are skipped, never burst.
///
/// A frame is never stamped before the transition it shows began: given the transition's
/// start (`notBefore`), a deadline before it gives way to the next one (the frame then shows
/// the first vsync after the start; without this, a reveal begun at 4.4755 s got a frame
/// stamped 4.4667 s — a moment before it began, or before the launch was requested).
struct FrameGrid: Sendable, Hashable {
    let fps: Double

    /// The time of frame `index`.
    func time(of index: Int) -> Double { Double(index) / fps }

    /// The frame due at `t`: the last deadline at or before it.
    func frame(at t: Double) -> Int {
        // A deadline computed as k / fps may land a hair above k / fps in binary; waking at
        // that instant must still count as frame k.
        Int((t * fps + 1e-7).rounded(.down))
    }

    /// The first deadline at or after `t` (with the same tolerance as `frame(at:)`).
    func nextFrame(at t: Double) -> Int {
        Int((t * fps - 1e-7).rounded(.up))
    }

    /// The frame to produce at `t` after `last` was produced: nil when it is not yet due. With
    /// `start` (when the transition shown began), never a frame stamped before it: the first
    /// deadline at or after the start instead, evaluated and stamped at that deadline.
    func due(at t: Double, after last: Int?, notBefore start: Double? = nil) -> Int? {
        var current = frame(at: t)
        if let start, time(of: current) < start - 1e-9 { current = max(current, nextFrame(at: start)) }
        if let last, current <= last { return nil }
        return current
    }

    /// When the next frame is due: the one after `last`, or — when nothing has been shown
    /// yet — the current one (at once). A deadline in the past means "now"; `due` then skips
    /// to the current frame.
    func nextDeadline(after last: Int?, from t: Double) -> Double {
        time(of: last.map { $0 + 1 } ?? frame(at: t))
    }
}
