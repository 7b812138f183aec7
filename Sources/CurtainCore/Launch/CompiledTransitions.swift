/// A configuration's two transitions compiled for its screen: the appear and the reveal, with
/// their slot keys and lengths. Compiled once per configuration (not per launch); a launch's
/// reveal is rebuilt only when its app reports elements (`with(elements:)`).
public struct CompiledTransitions: Sendable {
    /// One compiled timeline with what each frame needs of it.
    public struct Compiled: Sendable {
        public let timeline: Timeline
        /// The slots' keys ("layer.property"), parallel to the values `evaluate` returns.
        public let keys: [String]
        /// The transition's length for the coordinator (see `CompiledTransitions.length`).
        public let length: Double

        public init(_ timeline: Timeline) {
            self.timeline = timeline
            keys = timeline.slots.map(\.key)
            length = CompiledTransitions.length(timeline)
        }
    }

    public let appear: Compiled
    public private(set) var reveal: Compiled
    /// What the reveal is rebuilt from once the app reports its elements.
    public let revealDocument: TimelineDocument
    public let screenWidth: Double
    public let screenHeight: Double
    /// Hero's per-element modifiers from the configuration (`[transitions.modifiers.ID]`):
    /// under what the app reports for the element, over the transition's defaults.
    public let modifiers: [String: Hero.ElementModifiers]
    /// The splash's hero elements (the scene's `heroID` layers); empty: `Hero.defaultSplash`.
    public let splash: [String: Hero.Element]

    /// Compiles `appear` and `reveal` for a screen; each gets the screen's size as
    /// `screen.width` and `screen.height` where it declares those parameters.
    public init(
        appear: TimelineDocument,
        reveal: TimelineDocument,
        screenWidth: Double,
        screenHeight: Double,
        modifiers: [String: Hero.ElementModifiers] = [:],
        splash: [String: Hero.Element] = [:]
    ) throws(TimelineError) {
        self.modifiers = modifiers
        self.splash = splash
        // Hero from the scene's elements: with none reported, they leave as the scene says.
        var reveal = reveal
        if reveal.name == "hero", !splash.isEmpty {
            let configured = Dictionary(
                uniqueKeysWithValues: splash.map { id, element in
                    (id, Hero.Element(element.frame, modifiers: element.modifiers.over(modifiers[id] ?? .init())))
                }
            )
            reveal = Hero.document(from: configured, to: [String: Hero.Element]())
        }
        let screen = ["screen.width": screenWidth, "screen.height": screenHeight]
        self.appear = Compiled(try Timeline(document: appear, parameters: Self.declared(screen, by: appear)))
        self.reveal = Compiled(try Timeline(document: reveal, parameters: Self.declared(screen, by: reveal)))
        revealDocument = reveal
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
    }

    /// The reveal rebuilt for the elements an app reported: `hero` pairs them with the
    /// splash's; any other reveal gets them as `element.ID.x|y|width|height` parameters (the
    /// centre and size) where it declares them — `logo-move` flies to `element.logo`.
    public func with(elements: [String: Hero.Frame]) throws(TimelineError) -> CompiledTransitions {
        try with(elements: elements.mapValues { Hero.Element($0) })
    }

    /// The same, with each element's own modifiers (the app's report), which win over the
    /// configured ones (`modifiers`) field by field; the configured ones apply to the
    /// splash's elements too.
    public func with(elements: [String: Hero.Element]) throws(TimelineError) -> CompiledTransitions {
        var result = self
        let document: TimelineDocument
        var given: [String: Double] = ["screen.width": screenWidth, "screen.height": screenHeight]
        if revealDocument.name == "hero" {
            func configured(_ id: String, _ element: Hero.Element) -> Hero.Element {
                guard let base = modifiers[id] else { return element }
                var result = element
                result.modifiers = element.modifiers.over(base)
                return result
            }
            let splash =
                self.splash.isEmpty
                ? Hero.defaultSplash(width: screenWidth, height: screenHeight).mapValues { Hero.Element($0) }
                : self.splash
            document = Hero.document(
                from: Dictionary(uniqueKeysWithValues: splash.map { ($0.key, configured($0.key, $0.value)) }),
                to: Dictionary(uniqueKeysWithValues: elements.map { ($0.key, configured($0.key, $0.value)) })
            )
        } else {
            document = revealDocument
            for (id, element) in elements {
                let frame = element.frame
                given["element.\(id).x"] = frame.x + frame.width / 2
                given["element.\(id).y"] = frame.y + frame.height / 2
                given["element.\(id).width"] = frame.width
                given["element.\(id).height"] = frame.height
            }
        }
        result.reveal = Compiled(try Timeline(document: document, parameters: Self.declared(given, by: document)))
        return result
    }

    /// The app's own elements the reveal flies the splash's copies onto (the ids of its
    /// `element.ID.*` parameters: `logo` for `logo-move`), sorted. The app hides them until
    /// the launch is revealed, so each shows once, where it lands (seed 002).
    public var hiddenElements: [String] {
        Self.elementIDs(declaredBy: revealDocument)
    }

    public static func elementIDs(declaredBy document: TimelineDocument) -> [String] {
        var ids = Set<String>()
        for parameter in document.parameters ?? [] {
            let parts = parameter.name.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 3, parts[0] == "element", !parts[1].isEmpty { ids.insert(String(parts[1])) }
        }
        return ids.sorted()
    }

    /// The given parameters a document declares (a timeline refuses undeclared ones).
    private static func declared(_ given: [String: Double], by document: TimelineDocument) -> [String: Double] {
        let declared = Set((document.parameters ?? []).map(\.name))
        return given.filter { declared.contains($0.key) }
    }

    /// A transition's length for the coordinator: its duration, or — when something in it
    /// repeats for ever — the end of its last finite animation.
    public static func length(_ timeline: Timeline) -> Double {
        let finite = timeline.tracks.map(\.animation.endTime).filter(\.isFinite)
        return timeline.duration.isFinite ? timeline.duration : (finite.max() ?? 0)
    }
}
