import JSON

/// Seed 004 (Hero): elements with the same id on the splash and in the destination are
/// matched, and each flies from its splash frame to its destination frame; unmatched ones
/// leave (splash) or arrive (destination) with modifiers — fade, scale, translate — staggered
/// by a cascade. Built per launch, from the frames the app reports, as an ordinary timeline
/// document, so it evaluates, streams and can be inspected like every other transition.
///
/// Where the article's Hero is followed exactly:
/// - Per-element modifiers (`heroModifiers`): fade, scale, translate, delay, duration, curve
///   (`Element.modifiers`), over the defaults of the whole transition (`Modifiers`).
/// - `cascade(delta, direction, delayMatchedViews)` (CascadePreprocessor): each side's elements
///   are sorted by the direction's comparator; the i-th *unmatched* one starts i·delta later
///   (i counts matched elements too, as the article's `enumerated()` does); matched ones start
///   at once, or with `delayMatchedViews` after the whole cascade (count·delta, the
///   destination side's count — Hero processes the destination last, so its value stands).
/// - The transition lasts as long as its longest animation (`totalDuration = max(...)`).
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

    /// The order a cascade staggers elements in (Hero's `CascadeDirection`).
    public enum CascadeDirection: String, Sendable, Hashable, CaseIterable {
        case topToBottom, bottomToTop, leftToRight, rightToLeft
        /// Nearest the centre first (`radial(center:)`), and farthest first (`inverseRadial`).
        case radial, inverseRadial
    }

    /// One element's own modifiers (a view's `hero.modifiers`); nil inherits the transition's.
    public struct ElementModifiers: Sendable, Hashable {
        public var fade: Bool?
        /// Scale an unmatched element leaves to / arrives from (`.scale(0.5)`).
        public var scale: Double?
        /// Offset an unmatched element leaves by / arrives from (`.translate(x:y:)`), points.
        public var translateX: Double?
        public var translateY: Double?
        /// Seconds, added to the cascade's delay (`.delay`).
        public var delay: Double?
        /// Seconds (`.duration`).
        public var duration: Double?
        /// A timing function (`.timingFunction`), e.g. "easeOut" or "cubic-bezier(…)".
        public var timing: String?

        public init(
            fade: Bool? = nil,
            scale: Double? = nil,
            translateX: Double? = nil,
            translateY: Double? = nil,
            delay: Double? = nil,
            duration: Double? = nil,
            timing: String? = nil
        ) {
            self.fade = fade
            self.scale = scale
            self.translateX = translateX
            self.translateY = translateY
            self.delay = delay
            self.duration = duration
            self.timing = timing
        }

        /// These modifiers where set, `base`'s where not (an app's report over the configuration).
        public func over(_ base: ElementModifiers) -> ElementModifiers {
            ElementModifiers(
                fade: fade ?? base.fade,
                scale: scale ?? base.scale,
                translateX: translateX ?? (translateY == nil ? base.translateX : nil),
                translateY: translateY ?? (translateX == nil ? base.translateY : nil),
                delay: delay ?? base.delay,
                duration: duration ?? base.duration,
                timing: timing ?? base.timing
            )
        }

        /// Keys accepted in JSON (a scene's `heroModifiers`, an app's element report, the
        /// configuration's `[transitions.modifiers.ID]`).
        public static let keys: Set<String> = ["fade", "scale", "translate", "delay", "duration", "timing"]

        /// `{"fade": true, "scale": 0.5, "translate": {"x": 0, "y": 40}, "delay": 0.1,
        /// "duration": 0.3, "timing": "easeOut"}`, every key optional; errors name the key.
        public init(json value: JSONValue, path: String) throws(TimelineError) {
            guard case .object(let o) = value else {
                throw TimelineError(path, "must be an object with keys \(Self.keys.sorted())")
            }
            for key in o.keys where !Self.keys.contains(key) {
                throw TimelineError(
                    "\(path).\(key)",
                    "is not a modifier (modifiers: \(Self.keys.sorted().joined(separator: ", ")))"
                )
            }
            func number(_ key: String, _ v: JSONValue?) throws(TimelineError) -> Double? {
                guard let v else { return nil }
                let d: Double
                switch v {
                case .int(let i): d = Double(i)
                case .float(let f): d = f
                default: throw TimelineError("\(path).\(key)", "must be a number")
                }
                guard d.isFinite else { throw TimelineError("\(path).\(key)", "must be finite") }
                return d
            }
            self.init()
            if let f = o["fade"] {
                guard case .bool(let b) = f else { throw TimelineError("\(path).fade", "must be true or false") }
                fade = b
            }
            scale = try number("scale", o["scale"])
            if let t = o["translate"] {
                guard case .object(let to) = t, Set(to.keys).isSubset(of: ["x", "y"]) else {
                    throw TimelineError("\(path).translate", "must be {\"x\", \"y\"}")
                }
                translateX = try number("translate.x", to["x"]) ?? 0
                translateY = try number("translate.y", to["y"]) ?? 0
            }
            delay = try number("delay", o["delay"])
            duration = try number("duration", o["duration"])
            for (key, v) in [("delay", delay), ("duration", duration)] {
                if let v, !(0...Timeline.Limits.seconds).contains(v) {
                    throw TimelineError("\(path).\(key)", "\(v) is not within 0…\(Timeline.Limits.seconds) s")
                }
            }
            if let t = o["timing"] {
                guard case .string(let text) = t else {
                    throw TimelineError("\(path).timing", "must be a timing function, e.g. \"easeOut\"")
                }
                do { _ = try TimingFunction(parsing: text) } catch { throw TimelineError("\(path).timing", "\(error)") }
                timing = text
            }
        }
    }

    /// An element: its frame and its own modifiers.
    public struct Element: Sendable, Hashable {
        public var frame: Frame
        public var modifiers: ElementModifiers
        public init(_ frame: Frame, modifiers: ElementModifiers = .init()) {
            self.frame = frame
            self.modifiers = modifiers
        }
    }

    /// The transition's defaults for every element (a container's modifiers).
    public struct Modifiers: Sendable, Hashable {
        public var fade = true
        public var scale: Double? = nil
        public var translate: (x: Double, y: Double)? = nil
        /// The cascade's delta: each further element (in `cascadeDirection`) starts this much later.
        public var cascade: Double? = 0.02
        public var cascadeDirection = CascadeDirection.topToBottom
        /// Matched elements wait for the whole cascade (Hero's `delayMatchedViews`).
        public var delayMatchedViews = false
        /// The centre of a radial cascade; nil: the centre of that side's elements.
        public var cascadeCentre: (x: Double, y: Double)? = nil

        public init(
            fade: Bool = true,
            scale: Double? = nil,
            translate: (x: Double, y: Double)? = nil,
            cascade: Double? = 0.02,
            cascadeDirection: CascadeDirection = .topToBottom,
            delayMatchedViews: Bool = false,
            cascadeCentre: (x: Double, y: Double)? = nil
        ) {
            self.fade = fade
            self.scale = scale
            self.translate = translate
            self.cascade = cascade
            self.cascadeDirection = cascadeDirection
            self.delayMatchedViews = delayMatchedViews
            self.cascadeCentre = cascadeCentre
        }
        public static func == (a: Self, b: Self) -> Bool {
            a.fade == b.fade && a.scale == b.scale && a.translate?.x == b.translate?.x
                && a.translate?.y == b.translate?.y && a.cascade == b.cascade
                && a.cascadeDirection == b.cascadeDirection && a.delayMatchedViews == b.delayMatchedViews
                && a.cascadeCentre?.x == b.cascadeCentre?.x && a.cascadeCentre?.y == b.cascadeCentre?.y
        }
        public func hash(into hasher: inout Hasher) {
            hasher.combine(fade)
            hasher.combine(scale)
            hasher.combine(cascade)
            hasher.combine(cascadeDirection)
            hasher.combine(delayMatchedViews)
        }
    }

    /// The splash's own elements when the scene names none: the logo at the centre.
    public static func defaultSplash(width: Double, height: Double) -> [String: Frame] {
        ["logo": Frame(x: width / 2 - 44, y: height / 2 - 44, width: 88, height: 88)]
    }

    /// The splash's elements as a scene draws them: every layer with a `heroID`, at its model
    /// frame in screen coordinates (the scene's geometry has no model transforms, so a frame is
    /// its superlayers' origins plus its own), with its `heroModifiers`. Empty when none.
    public static func elements(in scene: Scene) -> [String: Element] {
        var result: [String: Element] = [:]
        func walk(_ layers: [SceneLayer], originX: Double, originY: Double) {
            for layer in layers {
                let b = layer.bounds
                // The layer's frame in its superlayer, then in screen coordinates.
                let x = originX + layer.position.x - layer.anchorPoint.x * b.width
                let y = originY + layer.position.y - layer.anchorPoint.y * b.height
                if let id = layer.heroID, result[id] == nil {
                    result[id] = Element(
                        Frame(x: x, y: y, width: b.width, height: b.height),
                        modifiers: layer.heroModifiers ?? .init()
                    )
                }
                walk(layer.sublayers, originX: x - b.x, originY: y - b.y)
            }
        }
        walk(scene.layers, originX: 0, originY: 0)
        return result
    }

    /// The reveal for these frames (every element with the transition's modifiers).
    public static func document(
        from splash: [String: Frame],
        to destination: [String: Frame],
        duration: Double = 0.5,
        timing: String = "easeInEaseOut",
        modifiers: Modifiers = .init()
    ) -> TimelineDocument {
        document(
            from: splash.mapValues { Element($0) },
            to: destination.mapValues { Element($0) },
            duration: duration,
            timing: timing,
            modifiers: modifiers
        )
    }

    /// The reveal for these elements. Layers: `hero.ID` per element, plus `splash` (its
    /// background fades over `duration`). Each element animates over its own duration and
    /// curve (its modifiers, else the transition's), after its cascade delay plus its own.
    public static func document(
        from splash: [String: Element],
        to destination: [String: Element],
        duration: Double = 0.5,
        timing: String = "easeInEaseOut",
        modifiers: Modifiers = .init()
    ) -> TimelineDocument {
        var layers: [JSONValue] = [["id": "splash", "initial": ["opacity": 1]]]
        var animations: [JSONValue] = [
            [
                "layer": "splash", "property": "opacity", "from": 1, "to": 0,
                "duration": .float(duration), "timing": .string(timing), "fill": "forwards",
            ]
        ]
        func frame(_ f: Frame) -> JSONValue {
            ["x": .float(f.centre.x), "y": .float(f.centre.y)]
        }
        func size(_ f: Frame) -> JSONValue {
            ["x": 0, "y": 0, "width": .float(f.width), "height": .float(f.height)]
        }
        func animate(
            _ layer: String,
            _ property: String,
            _ from: JSONValue,
            _ to: JSONValue,
            delay: Double,
            _ m: ElementModifiers
        ) {
            animations.append([
                "layer": .string(layer), "property": .string(property), "from": from, "to": to,
                "duration": .float(m.duration ?? duration), "delay": .float(delay + (m.delay ?? 0)),
                "timing": .string(m.timing ?? timing), "fill": "both",
            ])
        }

        let delta = modifiers.cascade ?? 0
        /// Each side's cascade order: id → index (Hero sorts every subview, matched or not).
        func order(_ side: [String: Element]) -> [String: Int] {
            let all = side.map { (id: $0.key, f: $0.value.frame) }
            let centre =
                modifiers.cascadeCentre
                ?? {
                    guard !all.isEmpty else { return (0, 0) }
                    let minX = all.map(\.f.x).min()!
                    let maxX = all.map { $0.f.x + $0.f.width }.max()!
                    let minY = all.map(\.f.y).min()!
                    let maxY = all.map { $0.f.y + $0.f.height }.max()!
                    return ((minX + maxX) / 2, (minY + maxY) / 2)
                }()
            func distance(_ f: Frame) -> Double {
                let dx = f.centre.x - centre.x
                let dy = f.centre.y - centre.y
                return (dx * dx + dy * dy).squareRoot()
            }
            // Primary key by direction; ties by the other axis, then id (a stable order).
            func key(_ e: (id: String, f: Frame)) -> (Double, Double, String) {
                switch modifiers.cascadeDirection {
                case .topToBottom: (e.f.y, e.f.x, e.id)
                case .bottomToTop: (-(e.f.y + e.f.height), -(e.f.x + e.f.width), e.id)
                case .leftToRight: (e.f.x, e.f.y, e.id)
                case .rightToLeft: (-(e.f.x + e.f.width), -(e.f.y + e.f.height), e.id)
                case .radial: (distance(e.f), e.f.y, e.id)
                case .inverseRadial: (-distance(e.f), e.f.y, e.id)
                }
            }
            let sorted = all.sorted { key($0) < key($1) }
            return Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1.id, $0) })
        }
        let splashOrder = order(splash)
        let destinationOrder = order(destination)
        let matchedDelay =
            modifiers.delayMatchedViews ? Double(destination.isEmpty ? splash.count : destination.count) * delta : 0

        for id in splash.keys.sorted() where destination[id] != nil {
            let a = splash[id]!
            let b = destination[id]!
            // The destination's modifiers rule a pair (Hero animates towards its target state).
            var m = a.modifiers
            if let d = b.modifiers.duration { m.duration = d }
            if let d = b.modifiers.delay { m.delay = d }
            if let t = b.modifiers.timing { m.timing = t }
            layers.append(["id": .string("hero.\(id)"), "description": "matched element"])
            animate("hero.\(id)", "position", frame(a.frame), frame(b.frame), delay: matchedDelay, m)
            animate("hero.\(id)", "bounds", size(a.frame), size(b.frame), delay: matchedDelay, m)
        }
        // Unmatched: the splash's leave, the destination's arrive, cascaded.
        for (side, other, order, leaves) in [
            (splash, destination, splashOrder, true), (destination, splash, destinationOrder, false),
        ] {
            for id in side.keys.sorted(by: { order[$0]! < order[$1]! }) where other[id] == nil {
                let element = side[id]!
                let m = element.modifiers
                let layer = "hero.\(id)"
                let delay = Double(order[id]!) * delta
                let f = element.frame
                layers.append([
                    "id": .string(layer),
                    "description": .string(leaves ? "splash only: leaves" : "destination only: arrives"),
                ])
                animate(layer, "position", frame(f), frame(f), delay: delay, m)
                if m.fade ?? modifiers.fade {
                    animate(layer, "opacity", leaves ? 1 : 0, leaves ? 0 : 1, delay: delay, m)
                }
                if let scale = m.scale ?? modifiers.scale {
                    animate(layer, "scale", leaves ? 1 : .float(scale), leaves ? .float(scale) : 1, delay: delay, m)
                }
                let t =
                    m.translateX != nil || m.translateY != nil
                    ? (x: m.translateX ?? 0, y: m.translateY ?? 0) : modifiers.translate
                if let t {
                    let moved: JSONValue = ["x": .float(f.centre.x + t.x), "y": .float(f.centre.y + t.y)]
                    animate(layer, "position", leaves ? frame(f) : moved, leaves ? moved : frame(f), delay: delay, m)
                }
            }
        }
        let document: JSONValue = [
            "name": "hero", "description": "Seed 004: matched elements fly between their frames.",
            "layers": .array(layers), "animations": .array(animations),
        ]
        // Built from numbers, ids and checked timing functions only; it always decodes.
        return try! TimelineDocument(json: JSONWriter.bytes(document))
    }
}
