/// Transitions shipped with Curtain, by name. Each is a timeline document (the same format a
/// configuration file uses), so `curtainctl timeline NAME --source` shows how to write one.
public enum Presets {
    public static let all: [String: String] = [
        "yula-appear": yulaAppear,
        "yula-mask-reveal": yulaMaskReveal,
        "mask-reveal": yulaMaskReveal,
        "fade": fade,
        "fade-in": fadeIn,
        "slide": slide,
        "flip": flip,
        "logo-move": logoMove,
        "panel-blur": panelBlur,
        // Built per launch from the elements the app reports; this is its form with none.
        "hero": Hero.document(from: Hero.defaultSplash(width: 375, height: 667), to: [:]).json(),
    ]

    /// The scene each preset is drawn over, relative to the scenes directory (`scenes/` in the
    /// source tree, `share/curtain/scenes` installed); presets without one use seed 000's.
    public static let scenes: [String: String] = [
        "yula-appear": "yula/yula.scene.json",
        "yula-mask-reveal": "yula/yula.scene.json",
        "mask-reveal": "yula/yula.scene.json",
        "slide": "slide/slide.scene.json",
        "flip": "slide/slide.scene.json",
        "panel-blur": "panel-blur/panel-blur.scene.json",
        "hero": "hero/hero.scene.json",
        "logo-move": "logo-move/logo-move.scene.json",
    ]

    /// Seed 001's four edges (`PresentingDirection`) as the slide's parameters, for a route's
    /// or an app's `direction`; nil for any other name.
    public static func slideDirection(_ name: String) -> [String: Double]? {
        switch name {
        case "bottom": ["direction.x": 0, "direction.y": 1]
        case "top": ["direction.x": 0, "direction.y": -1]
        case "left": ["direction.x": -1, "direction.y": 0]
        case "right": ["direction.x": 1, "direction.y": 0]
        default: nil
        }
    }

    /// `document` with the defaults of the named parameters replaced (a configured slide
    /// direction); nil when the document does not declare every one of them.
    public static func document(_ document: TimelineDocument, defaults: [String: Double]) -> TimelineDocument? {
        var result = document
        var parameters = document.parameters ?? []
        for (name, value) in defaults {
            guard let index = parameters.firstIndex(where: { $0.name == name }) else { return nil }
            parameters[index].default = .number(value)
        }
        result.parameters = parameters
        return result
    }

    /// The reduced-motion variant of every transition: a plain cross-fade.
    public static let reducedMotionAppear = "fade-in"
    public static let reducedMotionReveal = "fade"

    /// The named preset's document, or nil when there is none.
    public static func document(named name: String) -> TimelineDocument? {
        guard let text = all[name] else { return nil }
        // Shipped presets are tested to decode; a failure here is a bug in this file.
        return try! TimelineDocument(json: Array(text.utf8))
    }
}
