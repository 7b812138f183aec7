/// A compiled, evaluatable group of animations over named layers: everything a transition
/// (appear, reveal, slide, …) shows, as a pure function of time.
///
/// Built from a `TimelineDocument` with the parameters (screen size, element frames) bound,
/// so evaluation does no parsing, no lookups by name and no allocation beyond the frame.
public struct Timeline: Sendable, Hashable {
    /// One animatable (layer, property) pair and its model value.
    public struct Slot: Sendable, Hashable {
        /// The layer's id.
        public let layer: String
        /// Free text, e.g. `opacity`; the renderer gives it its meaning.
        public let property: String
        /// The model value: shown while no animation of this slot shows one.
        public let initial: Value
        /// `layer.property`: the slot's name in one string.
        public var key: String { "\(layer).\(property)" }
    }

    /// One animation, bound to the slot it drives.
    public struct Track: Sendable, Hashable {
        /// Index into `slots`.
        public let slot: Int
        /// The animation; its values are of the slot's kind.
        public let animation: Animation
    }

    /// The document's name.
    public let name: String
    /// Every animated (layer, property) once: the declared layers' initial values first, then
    /// those only animations name, in the order a `Frame` carries their values.
    public let slots: [Slot]
    /// In document order; a later track on the same slot wins while it shows a value.
    public let tracks: [Track]
    /// The parameters the timeline was compiled with (declared defaults and given values).
    public let parameters: [String: Double]

    /// A timeline as given, unchecked: every track's slot must index `slots`. Use
    /// `init(document:parameters:)` for a validated one.
    public init(name: String, slots: [Slot], tracks: [Track], parameters: [String: Double] = [:]) {
        self.name = name
        self.slots = slots
        self.tracks = tracks
        self.parameters = parameters
    }

    /// Time after which no value changes any more (∞ when something repeats for ever).
    public var duration: Double { tracks.reduce(0) { max($0, $1.animation.endTime) } }

    /// Values of every slot at time `t` (seconds from the timeline's start).
    public func evaluate(at t: Double) -> Frame {
        var values = slots.map(\.initial)
        evaluate(at: t, into: &values)
        return Frame(time: t, values: values)
    }

    /// The allocation-free form: `values` must hold one entry per slot; it is overwritten.
    @inlinable
    public func evaluate(at t: Double, into values: inout [Value]) {
        for i in slots.indices { values[i] = slots[i].initial }
        // Indexing rather than `for track in tracks`: one copy fewer per track (measured
        // with callgrind; BENCHMARKS.md has the frame cost).
        for i in tracks.indices {
            if let value = tracks[i].animation.value(at: t) { values[tracks[i].slot] = value }
        }
    }

    /// The index of `layer`'s `property` in `slots` (and in every frame's values); nil if the
    /// timeline does not animate it.
    public func slotIndex(layer: String, property: String) -> Int? {
        slots.firstIndex { $0.layer == layer && $0.property == property }
    }
}

/// What the screen should look like at one instant: one value per timeline slot.
public struct Frame: Sendable, Hashable {
    /// Scheduled time of the frame in seconds (never the wake-up time).
    public let time: Double
    /// One per slot of the timeline, in slot order.
    public let values: [Value]
}
