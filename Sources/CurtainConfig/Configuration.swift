import CurtainCore

/// Everything `curtaind` is configured with. Built-in defaults apply to whatever the file
/// leaves out (and to everything when there is no file).
public struct Configuration: Sendable {
    public struct Daemon: Sendable, Hashable {
        public var socket = "/run/curtain/io.curtain.Launcher"
        public var socketMode: UInt32 = 0o660
        public var socketGroup: String? = nil
        /// Frames per second of the frame clock (defaults to the display's refresh rate).
        public var frameRate: Double? = nil
        /// Seconds the overlay stays up at least, and at most before the launch gives up.
        public var minimumHold = 0.3
        public var maximumHold = 10.0
        public var maximumMessageSize = 16 * 1024 * 1024
        public var maximumConnections = 4096
        public var maximumConnectionsPerUser = 1024
    }

    public struct Display: Sendable, Hashable {
        public var width = 1920.0
        public var height = 1080.0
        public var refreshRate = 60.0
    }

    /// When an app counts as ready to be revealed (its sd_notify readiness stages).
    public enum Readiness: String, Sendable, Hashable, CaseIterable {
        case ready, skeleton, content, interactive
    }

    public struct App: Sendable, Hashable {
        public var name: String
        /// argv, never run through a shell; `{screen}` and `{param:NAME}` elements are filled in.
        public var exec: [String]
        public var environment: [String: String] = [:]
        public var workingDirectory: String? = nil
        public var screens: [String]
        public var defaultScreen: String
        public var readiness: Readiness = .ready
        public var singleInstance = true
    }

    public struct Transitions: Sendable {
        public var appear: TimelineDocument
        public var reveal: TimelineDocument
    }

    public var daemon = Daemon()
    public var display = Display()
    public var apps: [App] = []
    public var routes = RouteTable(apps: [])
    public var transitions = Transitions(appear: Presets.document(named: "yula-appear")!,
                                         reveal: Presets.document(named: "yula-mask-reveal")!)

    public init() {}

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
