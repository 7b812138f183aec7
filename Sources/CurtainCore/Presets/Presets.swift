/// Transitions shipped with Curtain, by name. Each is a timeline document (the same format a
/// configuration file uses), so `curtainctl timeline NAME --source` shows how to write one.
public enum Presets {
    public static let all: [String: String] = [
        "yula-appear": yulaAppear,
        "yula-mask-reveal": yulaMaskReveal,
    ]

    /// The named preset's document, or nil when there is none.
    public static func document(named name: String) -> TimelineDocument? {
        guard let text = all[name] else { return nil }
        // Shipped presets are tested to decode; a failure here is a bug in this file.
        return try! TimelineDocument(json: Array(text.utf8))
    }
}
