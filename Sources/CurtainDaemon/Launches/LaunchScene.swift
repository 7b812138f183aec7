import CurtainConfig
import CurtainCore

/// What GetScene says about one launch: the scene its configuration names and what varies per
/// launch. Kept as long as the coordinator remembers the launch.
struct LaunchScene: Sendable, Hashable {
    var scene: ConfigurationSnapshot.SceneReference
    /// The transitions that run (reduced motion applied).
    var appear: String
    var reveal: String
    var textVariant: Int
    /// The elements the app last reported (hero / logo hand-off).
    var elements: [String: Hero.Frame] = [:]
    /// Layer ids the app hides until the launch is revealed (seed 002).
    var hidden: [String] = []
}
