/// A compiled, evaluatable group of animations over named layers: everything a transition
/// (appear, reveal, slide, …) shows, as a pure function of time.
///
/// Built from a `TimelineDocument` with the parameters (screen size, element frames) bound,
/// so evaluation does no parsing, no lookups by name and no allocation beyond the frame.
public struct Timeline: Sendable, Hashable {
    /// One animatable (layer, property) pair and its model value.
    public struct Slot: Sendable, Hashable {
        public let layer: String
        public let property: String
        public let initial: Value
        public var key: String { "\(layer).\(property)" }
    }

    public struct Track: Sendable, Hashable {
        public let slot: Int
        public let animation: Animation
    }

    public let name: String
    public let slots: [Slot]
    /// In document order; a later track on the same slot wins while it shows a value.
    public let tracks: [Track]
    /// The parameters the timeline was compiled with (declared defaults and given values).
    public let parameters: [String: Double]

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

    public func slotIndex(layer: String, property: String) -> Int? {
        slots.firstIndex { $0.layer == layer && $0.property == property }
    }
}

/// What the screen should look like at one instant: one value per timeline slot.
public struct Frame: Sendable, Hashable {
    /// Scheduled time of the frame in seconds (never the wake-up time).
    public let time: Double
    public let values: [Value]
}
