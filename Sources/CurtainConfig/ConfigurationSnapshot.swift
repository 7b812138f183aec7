import CurtainCore

/// One configuration as a launch uses it from start to end: its settings, apps and routes,
/// and its transitions compiled for its screen — once per configuration, not per launch. The
/// driver and the app supervisor read the same snapshot, so a reload in the middle of a launch
/// never splits it across two configurations.
public struct ConfigurationSnapshot: Sendable {
    public let configuration: Configuration
    /// The effective transitions (reduced motion applied), compiled; the error when they do
    /// not compile (a loaded configuration has been checked, so only a hand-built one fails).
    public let transitions: Result<CompiledTransitions, TimelineError>
    /// The scene its overlay is drawn from (GetScene): the configured file, else the configured
    /// reveal's shipped scene (reduced motion changes the motion, not the scene).
    public let scene: SceneReference

    public struct SceneReference: Sendable, Hashable {
        /// The absolute path; nil when the shipped scene is installed nowhere.
        public let path: String?
        /// What was asked for: the configured path, or the shipped scene's relative path.
        public let name: String
    }

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let effective = configuration.effectiveTransitions
        transitions = Result { () throws(TimelineError) in
            try CompiledTransitions(appear: effective.appear, reveal: effective.reveal,
                                    screenWidth: configuration.display.width, screenHeight: configuration.display.height)
        }
        if let configured = configuration.transitions.scene {
            scene = SceneReference(path: SceneLocator.absolute(configured), name: configured)
        } else {
            let relative = SceneLocator.relativePath(forTransition: configuration.transitions.reveal.name)
            scene = SceneReference(path: SceneLocator.shipped(relative), name: relative)
        }
    }

    /// The app of that name in this configuration.
    public func app(named name: String?) -> Configuration.App? {
        configuration.apps.first { $0.name == name }
    }
}
