import ArgumentParser
import Foundation
import Systemd
import Varlink
import VarlinkNIO

/// A destination app for trying Curtain: it takes its route from the environment, pretends
/// to load (per screen), reports its stages and its logo's frame over sd_notify, and — with
/// --attach — takes later routes as warm starts through io.curtain.App.Attach.
@main
struct DemoApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curtain-demo-app",
        abstract: "A demo destination app for Curtain.",
        discussion: """
            Reads CURTAIN_LAUNCH_ID, CURTAIN_SCREEN, CURTAIN_PARAMS and NOTIFY_SOCKET as curtaind \
            sets them; reports X_CURTAIN_STAGE=skeleton, then content with X_CURTAIN_ELEMENTS (its \
            logo's frame), then READY=1. With --attach it stays attached to CURTAIN_SOCKET and \
            shows each delivered route, answering io.curtain.App.Ready (content, then ready).
            """
    )

    @Option(
        name: .customLong("load"),
        help: ArgumentHelp(
            "Seconds each screen takes to load: SECONDS or SCREEN=SECONDS (repeatable).",
            valueName: "spec"
        )
    )
    var loads: [String] = []

    @Option(help: ArgumentHelp("The screen to show (default: CURTAIN_SCREEN).", valueName: "name"))
    var screen: String?

    @Flag(help: "Take later launches as warm starts (io.curtain.App.Attach).")
    var attach = false

    func loadTime(_ screen: String) -> Double {
        var time = 0.5
        for spec in loads {
            let parts = spec.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == screen, let t = Double(parts[1]) { time = t }
            if parts.count == 1, let t = Double(parts[0]) { time = t }
        }
        return max(0, time)
    }

    /// One line, written at once: the output is a pipe to the journal, which stdio would buffer.
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static let logo = #"{"logo": {"x": 24, "y": 24, "width": 48, "height": 48}}"#

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let screen = self.screen ?? environment["CURTAIN_SCREEN"] ?? "home"
        say(
            "cold start: launch \(environment["CURTAIN_LAUNCH_ID"] ?? "?") screen \(screen) params \(environment["CURTAIN_PARAMS"] ?? "{}")"
        )
        guard attach, let socket = environment["CURTAIN_SOCKET"], let app = environment["CURTAIN_APP"] else {
            try await coldStart(screen)
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        // Attached from the start, while loading: a launch retargeted to this app while it
        // loads is delivered here at once instead of waiting for (or restarting) the app.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await coldStart(screen) }
            group.addTask { try await takeDeliveries(socket: socket, app: app) }
            // The app lives as long as its attachment.
            while let _ = try await group.next() {}
        }
    }

    /// The cold start's stages over sd_notify: skeleton, content (with the logo), READY=1.
    func coldStart(_ screen: String) async throws {
        let notifier = Notifier()
        let load = loadTime(screen)
        // The simulated loading is the app's behaviour, not synchronisation.
        try await Task.sleep(for: .seconds(load / 3))
        notifier.notify(["X_CURTAIN_STAGE=skeleton", "STATUS=\(screen): skeleton"])
        try await Task.sleep(for: .seconds(load * 2 / 3))
        notifier.notify(["X_CURTAIN_ELEMENTS=\(Self.logo)", "X_CURTAIN_STAGE=content", "STATUS=\(screen): content"])
        notifier.notify(["READY=1", "STATUS=\(screen): interactive"])
    }

    /// Element ids as the demo prints them ("logo, title"), "none" for none.
    static func names(_ value: JSONValue?) -> String {
        guard case .array(let items)? = value else { return "none" }
        let names = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    /// Warm starts: each delivered route is shown, then answered with io.curtain.App.Ready.
    func takeDeliveries(socket: String, app: String) async throws {
        try await VarlinkConnection.withConnection(to: socket) { attachment in
            try await VarlinkConnection.withConnection(to: socket) { answers in
                for try await reply in attachment.callMore("io.curtain.App.Attach", ["app": .string(app)]) {
                    // The splash's copy has landed: the app's own elements show again.
                    if case .object(let revealed)? = reply["revealed"], case .int(let launch)? = revealed["launch"] {
                        say("revealed: launch \(launch) shows \(Self.names(revealed["show"]))")
                        continue
                    }
                    guard case .object(let delivery)? = reply["delivery"], case .int(let launch)? = delivery["launch"],
                        case .string(let screen)? = delivery["screen"]
                    else { continue }
                    let hide = Self.names(delivery["hide"])
                    say(
                        "warm start: launch \(launch) screen \(screen)"
                            + (hide == "none" ? "" : " hides \(hide) until revealed")
                    )
                    try await Task.sleep(for: .seconds(loadTime(screen) / 4))
                    let elements = try JSONParser.parse(Array(Self.logo.utf8))
                    _ = try await answers.call(
                        "io.curtain.App.Ready",
                        [
                            "launch": .int(launch), "stage": "content",
                            "status": .string("\(screen): content"), "elements": elements,
                        ]
                    )
                    // Then fully ready, as on a cold start: a launch waits for the stage its
                    // app's `readiness` names, so an app configured for `ready` reveals too.
                    _ = try await answers.call(
                        "io.curtain.App.Ready",
                        [
                            "launch": .int(launch), "stage": "ready",
                            "status": .string("\(screen): interactive"),
                        ]
                    )
                }
            }
        }
    }
}
