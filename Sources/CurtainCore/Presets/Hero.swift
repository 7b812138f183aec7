import JSON

/// Seed 004 (Hero): elements with the same id on the splash and in the destination are
/// matched, and each flies from its splash frame to its destination frame; unmatched ones
/// leave (splash) or arrive (destination) with modifiers — fade, scale, translate — staggered
/// by a cascade. Built per launch, from the frames the app reports, as an ordinary timeline
/// document, so it evaluates, streams and can be inspected like every other transition.
public enum Hero {
    /// An element's frame in the overlay's coordinates (origin top left, points).
    public struct Frame: Sendable, Hashable {
        public var x, y, width, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
        var centre: (x: Double, y: Double) { (x + width / 2, y + height / 2) }
    }

    /// How an unmatched element leaves or arrives (Hero's modifiers).
    public struct Modifiers: Sendable, Hashable {
        public var fade = true
        public var scale: Double? = nil
        public var translate: (x: Double, y: Double)? = nil
        /// Each further element (top to bottom) starts this much later.
        public var cascade: Double? = 0.02
        public init(fade: Bool = true, scale: Double? = nil, translate: (x: Double, y: Double)? = nil, cascade: Double? = 0.02) {
            self.fade = fade
            self.scale = scale
            self.translate = translate
            self.cascade = cascade
        }
        public static func == (a: Self, b: Self) -> Bool {
            a.fade == b.fade && a.scale == b.scale && a.translate?.x == b.translate?.x && a.translate?.y == b.translate?.y && a.cascade == b.cascade
        }
        public func hash(into hasher: inout Hasher) { hasher.combine(fade); hasher.combine(scale); hasher.combine(cascade) }
    }

    /// The splash's own elements when the configuration names none: the logo at the centre.
    public static func defaultSplash(width: Double, height: Double) -> [String: Frame] {
        ["logo": Frame(x: width / 2 - 44, y: height / 2 - 44, width: 88, height: 88)]
    }

    /// The reveal for these elements. Layers: `hero.ID` per element, plus `splash` (its
    /// background fades over the same time).
    public static func document(from splash: [String: Frame], to destination: [String: Frame],
                                duration: Double = 0.5, timing: String = "easeInEaseOut",
                                modifiers: Modifiers = .init()) -> TimelineDocument {
        var layers: [JSONValue] = [["id": "splash", "initial": ["opacity": 1]]]
        var animations: [JSONValue] = [["layer": "splash", "property": "opacity", "from": 1, "to": 0,
                                        "duration": .float(duration), "timing": .string(timing), "fill": "forwards"]]
        func frame(_ f: Frame) -> JSONValue {
            ["x": .float(f.centre.x), "y": .float(f.centre.y)]
        }
        func size(_ f: Frame) -> JSONValue {
            ["x": 0, "y": 0, "width": .float(f.width), "height": .float(f.height)]
        }
        func animate(_ layer: String, _ property: String, _ from: JSONValue, _ to: JSONValue, delay: Double = 0) {
            animations.append(["layer": .string(layer), "property": .string(property), "from": from, "to": to,
                               "duration": .float(duration), "delay": .float(delay), "timing": .string(timing), "fill": "both"])
        }

        for id in splash.keys.sorted() where destination[id] != nil {
            let a = splash[id]!, b = destination[id]!
            layers.append(["id": .string("hero.\(id)"), "description": "matched element"])
            animate("hero.\(id)", "position", frame(a), frame(b))
            animate("hero.\(id)", "bounds", size(a), size(b))
        }
        // Unmatched: the splash's leave, the destination's arrive; top to bottom, cascaded.
        let leaving = splash.filter { destination[$0.key] == nil }.sorted { ($0.value.y, $0.key) < ($1.value.y, $1.key) }
        let arriving = destination.filter { splash[$0.key] == nil }.sorted { ($0.value.y, $0.key) < ($1.value.y, $1.key) }
        for (elements, leaves) in [(leaving, true), (arriving, false)] {
            for (index, element) in elements.enumerated() {
                let layer = "hero.\(element.key)"
                let delay = Double(index) * (modifiers.cascade ?? 0)
                layers.append(["id": .string(layer), "description": .string(leaves ? "splash only: leaves" : "destination only: arrives")])
                animate(layer, "position", frame(element.value), frame(element.value), delay: delay)
                if modifiers.fade { animate(layer, "opacity", leaves ? 1 : 0, leaves ? 0 : 1, delay: delay) }
                if let scale = modifiers.scale { animate(layer, "scale", leaves ? 1 : .float(scale), leaves ? .float(scale) : 1, delay: delay) }
                if let t = modifiers.translate {
                    let moved: JSONValue = ["x": .float(element.value.centre.x + t.x), "y": .float(element.value.centre.y + t.y)]
                    animate(layer, "position", leaves ? frame(element.value) : moved, leaves ? moved : frame(element.value), delay: delay)
                }
            }
        }
        let document: JSONValue = ["name": "hero", "description": "Seed 004: matched elements fly between their frames.",
                                   "layers": .array(layers), "animations": .array(animations)]
        // Built from numbers and ids only; it always decodes.
        return try! TimelineDocument(json: JSONWriter.bytes(document))
    }
}
