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
        "logo-move": logoMove,
        "panel-blur": panelBlur,
        // Built per launch from the elements the app reports; this is its form with none.
        "hero": Hero.document(from: Hero.defaultSplash(width: 375, height: 667), to: [:]).json(),
    ]

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
