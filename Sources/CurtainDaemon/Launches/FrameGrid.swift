/// The display's frame deadlines: frame k is due at k / fps seconds of daemon time — absolute
/// deadlines, like vsync, so a late wake-up never shifts the frames after it. After an
/// overrun only one frame is produced: missed ones are skipped, never burst.
///
/// A frame is produced for the first deadline at or after the moment it is computed, and
/// stamped (and evaluated) at that deadline — the vsync it is shown at. So a transition that
/// starts between deadlines, or a launch requested between them, never gets a frame stamped
/// before it began (the frame just before would show a moment that had not happened yet).
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

    /// The first deadline at or after `t` (with the same tolerance as `frame(at:)`, so that
    /// waking on a deadline gives that deadline).
    func nextFrame(at t: Double) -> Int {
        Int((t * fps - 1e-7).rounded(.up))
    }

    /// The frame to produce at `t` after `last` was produced — the next deadline at or after
    /// `t` — or nil when that one was produced already.
    func due(at t: Double, after last: Int?) -> Int? {
        let next = nextFrame(at: t)
        if let last, next <= last { return nil }
        return next
    }

    /// When to compute the next frame: at the deadline after `last`, or — when nothing has
    /// been shown yet — now (`due` then gives the next deadline's frame). A deadline in the
    /// past means "now".
    func nextDeadline(after last: Int?, from t: Double) -> Double {
        last.map { time(of: $0 + 1) } ?? t
    }
}
