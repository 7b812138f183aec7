import ArgumentParser
import CurtainCore
import CurtainctlSupport
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// Prints a stream of events: on a terminal a live view (one line per launch, progress bars),
/// piped or with --json one JSON object per line (frames only with --frames).
struct EventPrinter {
    let options: DaemonOptions
    let frames: Bool
    let live: Bool
    var view = LiveView()

    init(options: DaemonOptions, frames: Bool) {
        self.options = options
        self.frames = frames
        live = DaemonOptions.isTerminal && options.json == .off && !options.quiet
    }

    /// Frames are asked for on a terminal too: they drive the progress bars.
    var wantsFrames: Bool { frames || live }

    mutating func launch(_ launch: JSONValue) { if live { view.describe(launch) } }

    /// Prints `event`; returns its final state when it ended a launch.
    mutating func show(_ event: JSONValue) -> String? {
        let kind = event["kind"]?.text ?? ""
        let ended: String? =
            kind == "state" && ["revealed", "failed", "cancelled"].contains(event["to"]?.text ?? "")
            ? event["to"]?.text : nil
        if live {
            view.show(event)
        } else if !options.quiet, kind != "frame" || frames {
            Swift.print(JSONWriter.string(event, sortedKeys: true))
            fflush(nil)
        }
        return ended
    }
}

/// `curtainctl launch`: start a launch, optionally following it to its end.
struct LaunchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch",
        abstract: "Launch an app: a normal start, a push notification or a deep link.",
        discussion: "With --follow, exits 0 when the launch is revealed and 1 when it fails or is cancelled."
    )
    @OptionGroup var options: DaemonOptions
    @Option(help: ArgumentHelp("A normal start of this app.", valueName: "app")) var normal: String?
    @Option(help: ArgumentHelp("A push notification's payload (JSON object).", valueName: "json")) var push: String?
    @Option(help: ArgumentHelp("With --push: the app the notification names.", valueName: "app")) var app: String?
    @Option(help: ArgumentHelp("A deep link.", valueName: "url")) var deeplink: String?
    @Option(help: "Instead of the configured policy: retarget, queue, replace or ignore.") var policy: String?
    @Flag(help: "Stream the launch's events until it ends.") var follow = false
    @Flag(help: "With --follow: also the overlay's frames.") var frames = false

    func validate() throws {
        guard [normal, push, deeplink].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --normal APP, --push JSON, --deeplink URL")
        }
        if let policy, !["retarget", "queue", "replace", "ignore"].contains(policy) {
            throw ValidationError("--policy must be retarget, queue, replace or ignore")
        }
        if let push,
            (try? JSONParser.parse(Array(push.utf8))).map({ if case .object = $0 { true } else { false } }) != true
        {
            throw ValidationError("--push must be a JSON object")
        }
    }

    func run() throws {
        var route: [String: JSONValue] = [:]
        if let normal { route["normal"] = .string(normal) }
        if let deeplink { route["deeplink"] = .string(deeplink) }
        if let push { route["push"] = try JSONParser.parse(Array(push.utf8)) }
        if let app { route["push_app"] = .string(app) }
        var parameters: [String: JSONValue] = ["route": .object(route)]
        if let policy { parameters["policy"] = .string(policy) }
        if !follow {
            let reply = try options.withDaemon { client throws(DaemonClient.ClientError) in
                try client.call("io.curtain.Launcher.Launch", parameters)
            }
            if options.json != .off { return options.printJSON(.object(reply)) }
            let launch = reply["launch"]
            return options.print(
                "launch \(launch?["id"]?.text ?? "?") \(reply["decision"]?.text ?? ""): \(launch?["destination"]?["app"]?.text ?? "?")/\(launch?["destination"]?["screen"]?.text ?? "?") (\(launch?["state"]?.text ?? "?"))"
            )
        }
        var printer = EventPrinter(options: options, frames: frames)
        if printer.wantsFrames { parameters["frames"] = true }
        var outcome: String?
        try options.withDaemon { client throws(DaemonClient.ClientError) in
            try client.stream("io.curtain.Launcher.Launch", parameters) { reply throws(DaemonClient.ClientError) in
                if let event = reply["event"] {
                    if let ended = printer.show(event) { outcome = ended }
                } else if let launch = reply["launch"] {
                    printer.launch(launch)
                }
                return true
            }
        }
        if outcome != "revealed" { throw ExitCode(1) }
    }
}

/// `curtainctl watch [ID]`: stream events of one launch or of all.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch launches as they happen (one, or all)."
    )
    @OptionGroup var options: DaemonOptions
    @Argument(help: "Only this launch (the stream ends with it).") var id: Int?
    @Flag(help: "Also the overlay's frames.") var frames = false
    @Option(help: "At most this many frames per second (0.1 to 1000).") var fps: Double?

    // The daemon's ranges (WireLimits), checked here too so a typo gets a usage error.
    func validate() throws {
        if let id, id <= 0 { throw ValidationError("the launch id must be a positive integer (got \(id))") }
        if let fps, !(fps.isFinite && WireLimits.watchFPS.contains(fps)) {
            throw ValidationError(
                "--fps must be a number from \(Format.number(WireLimits.watchFPS.lowerBound)) to \(Format.number(WireLimits.watchFPS.upperBound)) (got \(fps))"
            )
        }
    }

    func run() throws {
        var parameters: [String: JSONValue] = [:]
        if let id { parameters["launch"] = .int(Int64(id)) }
        var printer = EventPrinter(options: options, frames: frames)
        if printer.wantsFrames { parameters["frames"] = true }
        if let fps { parameters["fps"] = .float(fps) } else if printer.live && !frames { parameters["fps"] = 20 }
        try options.withDaemon { client throws(DaemonClient.ClientError) in
            try client.stream("io.curtain.Launcher.Watch", parameters) { reply throws(DaemonClient.ClientError) in
                if let event = reply["event"] { _ = printer.show(event) }
                return true
            }
        }
    }
}
