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
    /// The transitions of apps with their own slide `direction`.
    private let perApp: [String: Result<CompiledTransitions, TimelineError>]

    /// The transitions a launch to `app` uses: its own (a slide from its `direction`), else
    /// the configuration's.
    public func transitions(forApp app: String?) -> Result<CompiledTransitions, TimelineError> {
        app.flatMap { perApp[$0] } ?? transitions
    }

    /// The elements an app hides until its launch ends: those the reveal flies onto (told to
    /// an attached app with each delivery, by either backend).
    public var hiddenElements: [String] { (try? transitions.get())?.hiddenElements ?? [] }

    public struct SceneReference: Sendable, Hashable {
        /// The absolute path; nil when the shipped scene is installed nowhere.
        public let path: String?
        /// What was asked for: the configured path, or the shipped scene's relative path.
        public let name: String
    }

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let effective = configuration.effectiveTransitions
        let scene: SceneReference
        if let configured = configuration.transitions.scene {
            scene = SceneReference(path: SceneLocator.absolute(configured), name: configured)
        } else {
            let relative = SceneLocator.relativePath(forTransition: configuration.transitions.reveal.name)
            scene = SceneReference(path: SceneLocator.shipped(relative), name: relative)
        }
        self.scene = scene
        // Seed 004: hero's splash elements are the scene's heroID layers (a scene that cannot
        // be read now leaves Hero's default logo; a configured one was checked on loading).
        var splash: [String: Hero.Element] = [:]
        if effective.reveal.name == "hero", let path = scene.path,
            case .success(let document) = SceneFileCheck.scene(
                path,
                width: configuration.display.width,
                height: configuration.display.height
            )
        {
            splash = Hero.elements(in: document)
        }
        let (width, height) = (configuration.display.width, configuration.display.height)
        transitions = Result { () throws(TimelineError) in
            try CompiledTransitions(
                appear: effective.appear,
                reveal: effective.reveal,
                screenWidth: width,
                screenHeight: height,
                modifiers: effective.modifiers,
                splash: splash
            )
        }
        var perApp: [String: Result<CompiledTransitions, TimelineError>] = [:]
        for app in configuration.apps {
            // With reduced motion the reveal is a cross-fade, which has no edge: nothing to vary.
            guard let name = app.direction, let edge = Presets.slideDirection(name),
                let reveal = Presets.document(effective.reveal, defaults: edge)
            else { continue }
            perApp[app.name] = Result { () throws(TimelineError) in
                try CompiledTransitions(
                    appear: effective.appear,
                    reveal: reveal,
                    screenWidth: width,
                    screenHeight: height,
                    modifiers: effective.modifiers,
                    splash: splash
                )
            }
        }
        self.perApp = perApp
    }

    /// The app of that name in this configuration.
    public func app(named name: String?) -> Configuration.App? {
        configuration.apps.first { $0.name == name }
    }
}
