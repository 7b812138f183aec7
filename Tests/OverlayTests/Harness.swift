import CurtainRender
import CurtainTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the overlay tests run: headless compositors, curtaind, curtain-overlay, screenshots.
enum Overlay {
    /// The output every test uses (and curtaind's display): small, so screenshots are cheap.
    static let width = 640, height = 480
    /// The stand-in app's colour.
    static let appColor: UInt32 = 0x2ECC71
    /// A pixel matches when every channel is within this many levels (antialiasing, dithering).
    static let channelTolerance = 24
    /// Bounds of every wait (a loaded CI machine; the waits end as soon as the condition holds).
    static let timeout = 30.0

    static func which(_ tool: String) -> String? {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin"]
        where TestEnvironment.isExecutable(directory + "/" + tool) {
            return directory + "/" + tool
        }
        return nil
    }

    /// Missing tools: a failure in CI (`make setup` installs them), a skip with a message elsewhere.
    static func missing(_ tools: [String]) -> [String] { tools.filter { which($0) == nil } }
    static func available(_ tools: [String]) -> Bool {
        let absent = missing(tools)
        if !absent.isEmpty, !TestEnvironment.inCI {
            print("OverlayTests: skipped, \(absent.joined(separator: ", ")) not installed (make setup installs them)")
        }
        return absent.isEmpty || TestEnvironment.inCI
    }

    /// Polls `condition` until it holds or `seconds` pass (screenshots have no event to wait on).
    static func eventually(
        within seconds: Double = timeout,
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))  // ok-sleep: the poll interval of a bounded wait
        }
        return try await condition()
    }

    /// Kills a process and every descendant (compositors start helpers), found through /proc.
    static func killTree(_ root: pid_t) {
        var children: [pid_t: [pid_t]] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { children[parent, default: []].append(pid) }
        }
        var order: [pid_t] = []
        var stack = [root]
        while let pid = stack.popLast() {
            order.append(pid)
            stack += children[pid] ?? []
        }
        for pid in order.reversed() { kill(pid, SIGKILL) }
    }
}

/// A headless compositor: sway (as nobody when root: sway 1.7 refuses root) or weston, with
/// its own XDG_RUNTIME_DIR; killed with its children when the test ends.
final class Compositor {
    let process: TestProcess
    let runtime: URL
    let display: String
    var environment: [String: String] { ["WAYLAND_DISPLAY": display, "XDG_RUNTIME_DIR": runtime.path] }

    private init(process: TestProcess, runtime: URL, display: String) {
        self.process = process
        self.runtime = runtime
        self.display = display
    }

    deinit {
        Overlay.killTree(process.pid)
        try? FileManager.default.removeItem(at: runtime)
    }

    static func runtimeDirectory(owner: String?) -> URL {
        let runtime = TestEnvironment.temporaryDirectory("overlay-rt")
        chmod(runtime.path, 0o700)
        if let owner, let user = getpwnam(owner) { chown(runtime.path, user.pointee.pw_uid, user.pointee.pw_gid) }
        return runtime
    }

    /// sway with one headless output of `width` × `height` pixels at `scale` (logical size:
    /// the pixels divided by the scale).
    static func sway(
        width: Int = Overlay.width,
        height: Int = Overlay.height,
        scale: Int = 1
    ) async throws -> Compositor {
        let asNobody = TestEnvironment.isRoot
        let runtime = runtimeDirectory(owner: asNobody ? "nobody" : nil)
        // In the runtime directory (removed with it): sway reads it after it has started.
        let config = runtime.appendingPathComponent("sway.conf")
        try """
        output HEADLESS-1 resolution \(width)x\(height) scale \(scale)
        default_border none
        default_floating_border none
        """.write(to: config, atomically: true, encoding: .utf8)
        chmod(config.path, 0o644)
        let environment = [
            "XDG_RUNTIME_DIR": runtime.path, "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman",
            "WLR_LIBINPUT_NO_DEVICES": "1", "PATH": "/usr/bin:/bin", "HOME": runtime.path,
        ]
        let sway = Overlay.which("sway")!
        let process =
            asNobody
            ? try await TestProcess(
                "/usr/bin/setpriv",
                ["--reuid=nobody", "--regid=nogroup", "--clear-groups", sway, "-c", config.path],
                environment: environment,
                inherit: false
            )
            : try await TestProcess(sway, ["-c", config.path], environment: environment, inherit: false)
        return try await started(process, runtime: runtime, name: "sway")
    }

    static func weston() async throws -> Compositor {
        let runtime = runtimeDirectory(owner: nil)
        let process = try await TestProcess(
            Overlay.which("weston")!,
            [
                "--backend=headless-backend.so", "--use-pixman", "--debug", "--idle-time=0", "--socket=wayland-curtain",
                "--width=\(Overlay.width)", "--height=\(Overlay.height)", "--shell=desktop-shell.so", "--no-config",
            ],
            environment: ["XDG_RUNTIME_DIR": runtime.path],
            inherit: true
        )
        return try await started(process, runtime: runtime, name: "weston")
    }

    /// Up once its socket exists (the compositor creates it when it is ready for clients).
    private static func started(_ process: TestProcess, runtime: URL, name: String) async throws -> Compositor {
        var display: String? = nil
        let up = await Overlay.eventually(within: 20) {
            display = (try? FileManager.default.contentsOfDirectory(atPath: runtime.path))?
                .first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
            return display != nil
        }
        guard up, let display else {
            Overlay.killTree(process.pid)
            throw HarnessError("\(name) did not come up within 20 s: \(process.output.suffix(2000))")
        }
        return Compositor(process: process, runtime: runtime, display: display)
    }

    /// sway's IPC socket, for swaymsg.
    var swaySocket: String? {
        (try? FileManager.default.contentsOfDirectory(atPath: runtime.path))?.first { $0.hasPrefix("sway-ipc.") }.map {
            runtime.path + "/" + $0
        }
    }

    func swaymsg(_ arguments: String...) async throws {
        let result = try await TestProcess.run(Overlay.which("swaymsg")!, ["-s", swaySocket ?? ""] + arguments)
        guard result.status == 0 else { throw HarnessError("swaymsg \(arguments): \(result)") }
    }

    /// A screenshot: grim on sway, weston-screenshooter on weston (it writes into its directory).
    func screenshot(_ directory: URL, weston: Bool = false) async throws -> Screen {
        let file = directory.appendingPathComponent("shot-\(UUID().uuidString.prefix(8)).png").path
        if weston {
            let before = Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            let result = try await TestProcess.run(
                "/bin/sh",
                ["-c", "cd \"$1\" && exec \"$2\"", "sh", directory.path, Overlay.which("weston-screenshooter")!],
                environment: environment
            )
            let made = Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).subtracting(
                before
            ).filter { $0.hasSuffix(".png") }
            guard result.status == 0, let name = made.first else {
                throw HarnessError("weston-screenshooter: \(result)")
            }
            try FileManager.default.moveItem(atPath: directory.path + "/" + name, toPath: file)
        } else {
            let result = try await TestProcess.run(Overlay.which("grim")!, [file], environment: environment)
            guard result.status == 0 else { throw HarnessError("grim: \(result)") }
        }
        guard let image = Image.readPNG(file) else { throw HarnessError("\(file): not a readable PNG") }
        // CURTAIN_OVERLAY_SHOTS=DIR keeps a copy of every screenshot there, to look at.
        if let keep = ProcessInfo.processInfo.environment["CURTAIN_OVERLAY_SHOTS"] {
            try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            try? FileManager.default.copyItem(atPath: file, toPath: keep + "/" + (file as NSString).lastPathComponent)
        }
        return Screen(image: image, path: file)
    }
}

/// A screenshot's pixels as 0xRRGGBB.
struct Screen {
    let width: Int, height: Int
    let rgb: [UInt32]
    let path: String

    init(image: Image, path: String) {
        width = image.width
        height = image.height
        rgb = image.pixels.map { $0 & 0xFF_FFFF }
        self.path = path
    }

    static func close(_ a: UInt32, _ b: UInt32, tolerance: Int = Overlay.channelTolerance) -> Bool {
        for shift: UInt32 in [0, 8, 16] where abs(Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF)) > tolerance {
            return false
        }
        return true
    }

    /// The share of pixels of about this colour.
    func fraction(of color: UInt32) -> Double {
        Double(rgb.count { Self.close($0, color) }) / Double(max(1, rgb.count))
    }

    /// The share of pixels that differ from `other` (same size) beyond the tolerance.
    func mismatch(_ other: Screen) -> Double {
        guard other.width == width, other.height == height else { return 1 }
        return Double(zip(rgb, other.rgb).count { !Self.close($0, $1) }) / Double(max(1, rgb.count))
    }

    func at(_ x: Int, _ y: Int) -> UInt32 { rgb[y * width + x] }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// curtaind on a temporary socket whose one app, "shop", is curtain-test-window on the
/// compositor; the app reports ready when the test opens `readyFIFO`.
final class Daemon {
    let directory: URL
    let socket: String
    let config: String
    let readyFIFO: String
    var process: TestProcess

    /// `width` × `height`: curtaind's [display], the size its frames are computed for (the
    /// output's pixels).
    /// `extra`: more of curtain.toml (a [transitions] table).
    init(
        compositor: Compositor,
        external: Bool = false,
        width: Int = Overlay.width,
        height: Int = Overlay.height,
        extra: String = ""
    ) async throws {
        directory = TestEnvironment.temporaryDirectory("overlay")
        socket = directory.appendingPathComponent("s").path
        config = directory.appendingPathComponent("curtain.toml").path
        readyFIFO = directory.appendingPathComponent("ready").path
        mkfifo(readyFIFO, 0o600)
        let app =
            external
            ? ""
            : """
            exec = ["\(TestEnvironment.product("curtain-test-window"))", "\(String(Overlay.appColor, radix: 16))", "--ready-fifo", "\(readyFIFO)"]
            environment = { WAYLAND_DISPLAY = "\(compositor.display)", XDG_RUNTIME_DIR = "\(compositor.runtime.path)" }
            readiness = "ready"
            single_instance = false
            """
        try """
        [daemon]
        notify_socket = "\(directory.path)/notify-apps"
        min_hold = 0.1
        max_hold = 60
        [display]
        width = \(width)
        height = \(height)
        refresh_rate = 60
        [[apps]]
        name = "shop"
        screens = ["home"]
        default_screen = "home"
        \(app)
        \(extra)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        process = try await Self.start(directory: directory, config: config, socket: socket)
    }

    static func start(directory: URL, config: String, socket: String) async throws -> TestProcess {
        // A directory of its own per start: the listener's socket of a killed daemon stays behind.
        let notifyDirectory = directory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: notifyDirectory, withIntermediateDirectories: true)
        let notify = NotifyListener(directory: notifyDirectory)
        let process = try await TestProcess(
            TestEnvironment.product("curtaind"),
            ["--config", config, "--socket", socket],
            environment: ["NOTIFY_SOCKET": notify.path]
        )
        guard await notify.await(timeout: Overlay.timeout, { $0.hasPrefix("READY=1") }).matched != nil else {
            throw HarnessError("curtaind did not start: \(process.output)")
        }
        return process
    }

    func restart() async throws { process = try await Self.start(directory: directory, config: config, socket: socket) }

    func ctl(_ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await TestProcess.run(
            TestEnvironment.product("curtainctl"),
            arguments,
            environment: ["CURTAIN_SOCKET": socket]
        )
    }

    /// The stand-in app becomes ready (its reader thread is blocked opening the FIFO).
    func makeAppReady() throws {
        let fd = open(readyFIFO, O_WRONLY | O_NONBLOCK)
        guard fd >= 0 else {
            throw HarnessError("the app does not wait on \(readyFIFO): \(String(cString: strerror(errno)))")
        }
        close(fd)
    }

    deinit {
        Overlay.killTree(process.pid)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// `curtain-overlay` on a compositor, following a daemon.
func startOverlay(_ compositor: Compositor, _ daemon: Daemon, arguments: [String] = []) async throws -> TestProcess {
    try await TestProcess(
        TestEnvironment.product("curtain-overlay"),
        ["--socket", daemon.socket] + arguments,
        environment: compositor.environment
    )
}
