import ArgumentParser
import CurtainCore
import CurtainWeb

#if canImport(Glibc)
import Glibc
#endif

/// `curtain-web`: the overlay in a browser (docs/web.md).
@main
struct CurtainWebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curtain-web",
        abstract: "Serve the overlay to a browser: the page, the scene and a live stream of curtaind's launches.",
        discussion: """
            Open http://127.0.0.1:7480/ to watch launches live, drawn from their scene and frames; \
            /?replay=/replays/NAME plays a recorded `curtainctl launch --follow --frames --json short` file \
            from --replays DIR. Read-only: GET and HEAD only, and curtaind is only watched (Watch, Get, \
            GetScene), never steered. Binds 127.0.0.1 unless --listen says otherwise.
            """
    )

    @Option(
        help: ArgumentHelp(
            "curtaind's socket (default: $CURTAIN_SOCKET, then /run/curtain/io.curtain.Launcher, then $XDG_RUNTIME_DIR/curtain/io.curtain.Launcher).",
            valueName: "path"
        )
    )
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "Address and port to listen on (port 0: any free port, printed at start).",
            valueName: "host:port"
        )
    )
    var listen = "127.0.0.1:7480"

    @Option(
        help: ArgumentHelp(
            "Draw every launch with this scene file (else each launch's own scene, from curtaind's GetScene, or --transition's).",
            valueName: "file"
        )
    )
    var scene: String?

    @Option(
        help: ArgumentHelp(
            "When curtaind cannot say a launch's scene (an older curtaind): the scene of this transition preset.",
            valueName: "name"
        )
    )
    var transition = "yula-mask-reveal"

    @Option(help: ArgumentHelp("Serve the files of this directory as /replays/NAME (for ?replay=).", valueName: "dir"))
    var replays: String?

    @Option(
        help: ArgumentHelp(
            "The screen the frames are computed for (the configuration's [display]), the page's default size.",
            valueName: "WxH"
        )
    )
    var size = "1920x1080"

    @Option(help: "Frames per second asked of curtaind (0.1 to 1000).") var fps = 60.0
    @Option(help: "Browsers streaming at once.") var maxClients = WebLimits().streamClients
    @Option(help: "Bytes a browser's stream may fall behind by before it is dropped.") var clientBuffer = WebLimits()
        .streamBacklogBytes
    @Option(help: "Seconds a connection may take to send a request's head before it is closed (0.05 to 600).")
    var headTimeout = WebLimits().requestHeadSeconds

    func validate() throws {
        guard parseSize() != nil else {
            throw ValidationError("--size must be WIDTHxHEIGHT, each 1…8192 (got \(size))")
        }
        guard parseListen() != nil else { throw ValidationError("--listen must be HOST:PORT (got \(listen))") }
        guard fps.isFinite, (0.1...1000).contains(fps) else { throw ValidationError("--fps must be from 0.1 to 1000") }
        guard (1...4096).contains(maxClients) else { throw ValidationError("--max-clients must be from 1 to 4096") }
        guard headTimeout.isFinite, (0.05...600).contains(headTimeout) else {
            throw ValidationError("--head-timeout must be from 0.05 to 600 seconds")
        }
        guard (1024...(64 << 20)).contains(clientBuffer) else {
            throw ValidationError("--client-buffer must be from 1024 to 67108864 bytes")
        }
    }

    func parseSize() -> (Int, Int)? {
        let p = size.split(separator: "x")
        guard p.count == 2, let w = Int(p[0]), let h = Int(p[1]), (1...8192).contains(w), (1...8192).contains(h) else {
            return nil
        }
        return (w, h)
    }

    func parseListen() -> (String, Int)? {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        let host = String(listen[..<colon])
        return host.isEmpty ? nil : (host, port)
    }

    /// The fallback scene: --scene, else the transition's preset scene in the scenes directory
    /// ($CURTAIN_SCENES, else <prefix>/share/curtain/scenes beside the binary, else the source tree's).
    func fallbackScene() throws -> String {
        if let scene { return scene.hasPrefix("/") ? scene : currentDirectory() + "/" + scene }
        let relative = Presets.scenes[transition] ?? "yula/yula.scene.json"
        var directories: [String] = []
        if let env = getenv("CURTAIN_SCENES").map({ String(cString: $0) }), !env.isEmpty { directories.append(env) }
        let exe = executableDirectory()
        directories.append(exe + "/../share/curtain/scenes")
        directories.append(String(#filePath.dropLast("Sources/curtain-web/CurtainWeb.swift".count)) + "scenes")
        for d in directories where access(d + "/" + relative, R_OK) == 0 { return d + "/" + relative }
        throw ValidationError(
            "no scene for \(transition): looked for \(relative) in \(directories.joined(separator: ", ")); pass --scene FILE"
        )
    }

    func run() throws {
        let (width, height) = parseSize()!
        let (host, port) = parseListen()!
        var limits = WebLimits()
        limits.streamClients = maxClients
        limits.streamBacklogBytes = clientBuffer
        limits.requestHeadSeconds = headTimeout
        var options = WebServer.Options(defaultScene: try fallbackScene())
        options.host = host
        options.port = port
        options.limits = limits
        options.replays = replays
        options.width = width
        options.height = height
        let hub = Hub(limits: limits)
        let scenes = SceneRegistry(limit: limits.scenes)
        do { _ = try scenes.register(path: options.defaultScene) } catch { throw ValidationError(error.description) }
        let server = WebServer(options: options, hub: hub, scenes: scenes)
        let bound = try server.start()
        if !["127.0.0.1", "::1", "localhost"].contains(host) {
            print("curtain-web: warning: listening on \(host), beyond this machine (read-only still)")
        }
        print("curtain-web: serving http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/")
        fflush(nil)
        Relay(socket: socket, fps: fps, hub: hub, scenes: scenes, fallbackScene: options.defaultScene).start()
        while true { pause() }
    }
}

func currentDirectory() -> String {
    guard let p = getcwd(nil, 0) else { return "." }
    defer { free(p) }
    return String(cString: p)
}

func executableDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return "." }
    let path = String(cString: buffer)
    return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}
