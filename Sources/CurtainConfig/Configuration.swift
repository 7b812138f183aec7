import CurtainCore

/// Everything `curtaind` is configured with. Built-in defaults apply to whatever the file
/// leaves out (and to everything when there is no file).
public struct Configuration: Sendable {
    public struct Daemon: Sendable, Hashable {
        public var socket = "/run/curtain/io.curtain.Launcher"
        public var socketMode: UInt32 = 0o660
        public var socketGroup: String? = nil
        /// The NOTIFY_SOCKET curtaind gives the apps it starts.
        public var notifySocket = "/run/curtain/notify"
        /// Frames per second of the frame clock (defaults to the display's refresh rate).
        public var frameRate: Double? = nil
        /// Seconds the overlay stays up at least, and at most before the launch gives up.
        public var minimumHold = 0.3
        public var maximumHold = 10.0
        public var maximumMessageSize = 16 * 1024 * 1024
        public var maximumConnections = 4096
        public var maximumConnectionsPerUser = 1024
        /// Who may launch, control and reload besides root (read-only methods are open to
        /// anyone who can open the socket).
        public var controlGroup: String? = "curtain"
        /// What happens to a launch whose app is not ready by max_hold, and to a launch that
        /// arrives while another holds the overlay.
        public var onTimeout: TimeoutAction = .fallback
        public var whileLoading: ConcurrencyPolicy = .retarget
        public var whileRevealing: ConcurrencyPolicy = .queue
        public var duplicateWindow = 1.0
        public var maximumQueued = 8
        /// An observer that cannot take a reply for this long is disconnected; at most this
        /// many state events wait for one observer.
        public var observerGrace = 2.0
        public var observerQueue = 256

        public var launchSettings: LaunchSettings {
            LaunchSettings(
                minimumHold: minimumHold,
                maximumHold: maximumHold,
                onTimeout: onTimeout,
                whileLoading: whileLoading,
                whileRevealing: whileRevealing,
                duplicateWindow: duplicateWindow,
                maximumQueued: maximumQueued
            )
        }
    }

    public struct Display: Sendable, Hashable {
        public var width = 1920.0
        public var height = 1080.0
        public var refreshRate = 60.0
        /// Every transition becomes a plain cross-fade (the accessibility setting).
        public var reducedMotion = false
    }

    /// When an app counts as ready to be revealed (its sd_notify readiness stages).
    public typealias Readiness = ReadinessStage

    public struct App: Sendable, Hashable {
        public var name: String
        /// argv, never run through a shell; `{screen}` and `{param:NAME}` elements are filled in.
        /// Empty: the app is not started by curtaind (it reports through io.curtain.App).
        public var exec: [String]
        /// The app is this systemd unit instead (`exec` is then empty): curtaind starts and
        /// watches it through systemd (docs/units.md).
        public var unit: UnitName? = nil
        public var environment: [String: String] = [:]
        public var workingDirectory: String? = nil
        public var screens: [String]
        public var defaultScreen: String
        public var readiness: Readiness = .ready
        public var singleInstance = true
        /// A running single-instance app that has not attached (io.curtain.App.Attach):
        /// restart it, or reveal at once (it is on screen already).
        public var warm: WarmPolicy = .restart
        /// Seed 001's edge for this app's slide (`Presets.slideDirection`), over
        /// `[transitions] direction`; nil: the transitions' own.
        public var direction: String? = nil
    }

    public enum WarmPolicy: String, Sendable, Hashable, CaseIterable {
        case restart
        case revealNow = "reveal-now"
    }

    public struct Transitions: Sendable {
        public var appear: TimelineDocument
        public var reveal: TimelineDocument
        /// Keep the reveal's last frame for the next owner of the screen (Plymouth's
        /// --retain-splash); otherwise the overlay is simply removed.
        public var retain = true
        /// The splash shows one of this many texts, chosen at random per launch (seed 000).
        public var textVariants = 1
        /// The scene file the overlay is drawn from (`[transitions] scene`, absolute once
        /// loaded); nil: the reveal's shipped scene (`SceneLocator`).
        public var scene: String?
        /// Hero's modifiers per element id (`[transitions.modifiers.ID]`), under the app's own.
        public var modifiers: [String: Hero.ElementModifiers] = [:]

        public init(
            appear: TimelineDocument,
            reveal: TimelineDocument,
            retain: Bool = true,
            textVariants: Int = 1,
            scene: String? = nil,
            modifiers: [String: Hero.ElementModifiers] = [:]
        ) {
            self.modifiers = modifiers
            self.appear = appear
            self.reveal = reveal
            self.retain = retain
            self.textVariants = textVariants
            self.scene = scene
        }
    }

    public var daemon = Daemon()
    public var display = Display()
    public var apps: [App] = []
    public var routes = RouteTable(apps: [])
    public var transitions = Transitions(
        appear: Presets.document(named: "yula-appear")!,
        reveal: Presets.document(named: "yula-mask-reveal")!
    )

    /// The transitions a launch uses: the configured ones, or cross-fades with reduced motion.
    public var effectiveTransitions: Transitions {
        guard display.reducedMotion else { return transitions }
        return Transitions(
            appear: Presets.document(named: Presets.reducedMotionAppear)!,
            reveal: Presets.document(named: Presets.reducedMotionReveal)!,
            retain: transitions.retain,
            textVariants: transitions.textVariants,
            scene: transitions.scene,
            modifiers: transitions.modifiers
        )
    }

    public init() {}

    /// Most `[transitions.modifiers.ID]` tables (as many as an app may report elements).
    public static let maximumModifiers = 32

    /// Where the daemon reads its configuration unless told otherwise.
    public static let defaultPath = "/etc/curtain/curtain.toml"

    /// One line: what the configuration holds.
    public var summary: String {
        "\(apps.count) app\(apps.count == 1 ? "" : "s"), \(routes.deepLinks.count) deep-link rule\(routes.deepLinks.count == 1 ? "" : "s"), "
            + "\(routes.pushRules.count) push rule\(routes.pushRules.count == 1 ? "" : "s"), "
            + "fallback \(routes.fallback.map { "\($0.app)/\($0.screen)" } ?? "none"), "
            + "display \(Int(display.width))×\(Int(display.height)) at \(Int(display.refreshRate)) Hz, "
            + "transitions \(transitions.appear.name) / \(transitions.reveal.name)"
    }
}
