import ArgumentParser
import CurtainCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `curtain-overlay`: the splash on a Wayland screen. A Varlink observer of curtaind (Watch
/// with frames) on one thread, the Wayland client on the main thread; the newest wanted
/// picture passes between them through a `Mailbox`. See docs/overlay.md.
@main
struct CurtainOverlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curtain-overlay",
        abstract: "Draws curtaind's launch overlays on a Wayland compositor (WAYLAND_DISPLAY).",
        discussion: """
            Uses the zwlr_layer_shell_v1 overlay layer (sway, labwc, cage-like kiosks); where the \
            compositor lacks it, a fullscreen xdg_toplevel (Weston), and says so. Draws at the scale of \
            the output it is on (wl_output.scale), the scene laid out in the output's logical points: \
            set curtaind's [display] to that size (the mode divided by the scale). Reconnects to curtaind \
            and to the compositor with backoff. Logs to stderr with syslog priority prefixes (the journal \
            under systemd). See docs/overlay.md.
            """,
        version: CurtainVersion.string
    )

    @Option(
        help: ArgumentHelp(
            "curtaind's socket (default: $CURTAIN_SOCKET, /run/curtain/io.curtain.Launcher, then $XDG_RUNTIME_DIR/curtain/io.curtain.Launcher).",
            valueName: "path"
        )
    )
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "Draw every launch over this scene file, whatever curtaind says (GetScene).",
            valueName: "file"
        )
    )
    var scene: String?

    @Option(
        help: ArgumentHelp(
            "Append a line per committed frame: when it was due and when it was committed (CLOCK_BOOTTIME seconds), the CPU seconds drawing it took, then when it was received, drawing started, rendered and its damage known (make bench).",
            valueName: "file"
        )
    )
    var trace: String?

    func validate() throws {
        if let scene, !FileManager.default.isReadableFile(atPath: scene) {
            throw ValidationError("--scene \(scene): not a readable file")
        }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let mailbox = Mailbox()
        let scenes = SceneLocator(explicit: scene)
        let watcher = DaemonWatcher(socket: socket, scenes: scenes, mailbox: mailbox)
        let thread = Thread { watcher.run() }
        thread.name = "curtaind-watch"
        thread.start()
        // Stops on SIGTERM/SIGINT: the compositor loop sees the flag at its next wake-up.
        for s in [SIGTERM, SIGINT] {
            signal(s) { _ in
                Mailbox.stopRequested.store(1, ordering: .relaxed)
                Mailbox.wakeForSignal()
            }
        }
        let display = OverlayDisplay(mailbox: mailbox)
        if let trace {
            guard let file = fopen(trace, "a") else {
                throw ValidationError("--trace \(trace): \(String(cString: strerror(errno)))")
            }
            display.trace = file
        }
        display.run()
        Log.info("stopped")
    }
}

/// Lines for the journal: stderr with the `<N>` priority prefixes systemd reads.
enum Log {
    static func error(_ message: String) { write(3, message) }
    static func warning(_ message: String) { write(4, message) }
    static func info(_ message: String) { write(6, message) }
    static func debug(_ message: String) { if getenv("CURTAIN_OVERLAY_DEBUG") != nil { write(7, message) } }

    private static func write(_ priority: Int, _ message: String) {
        let line = "<\(priority)>curtain-overlay: \(message)\n"
        var bytes = Array(line.utf8)
        _ = Glibc.write(2, &bytes, bytes.count)
    }
}
