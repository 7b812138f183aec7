/// The display's frame deadlines: frame k is due at k / fps seconds of daemon time — absolute
/// deadlines, like vsync, so a late wake-up never shifts the frames after it. After an
/// overrun only the current frame is produced: missed ones are skipped, never burst.
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

    /// The frame to produce at `t` after `last` was produced: nil when it is not yet due.
    func due(at t: Double, after last: Int?) -> Int? {
        let current = frame(at: t)
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
