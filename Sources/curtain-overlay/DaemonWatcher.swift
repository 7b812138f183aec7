import CurtainCore
import CurtainctlSupport
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// Follows curtaind as an ordinary observer (Watch with frames: read access only) and turns
/// its events into the `Target` the overlay shows. Runs on its own thread with blocking
/// clients; reconnects with backoff when curtaind goes away.
final class DaemonWatcher: @unchecked Sendable {
    /// Reconnection delays: doubled from the first up to the maximum.
    static let firstBackoff = 0.1
    static let maximumBackoff = 2.0
    /// Without curtaind the last frame stays this long (a restart is not a flash); then the
    /// overlay clears rather than cover the app with a frozen splash.
    static let disconnectGrace = 2.0

    let socket: String?
    let scenes: SceneLocator
    let mailbox: Mailbox

    // Only touched on the watcher thread.
    private var current: Int64?
    private var lastFrame: FrameContent?
    private var finalSeen = false
    private var sceneOf: [Int64: (path: String, hash: String?, textVariant: Int)] = [:]
    /// An older curtaind without GetScene: the preset mapping (or --scene) from then on.
    private var getSceneMissing = false
    /// The zero of curtaind's clock on CLOCK_BOOTTIME, in seconds (GetStatus), for --trace.
    private var clockOrigin: Double?

    init(socket: String?, scenes: SceneLocator, mailbox: Mailbox) {
        self.socket = socket
        self.scenes = scenes
        self.mailbox = mailbox
    }

    func run() {
        var backoff = Self.firstBackoff
        var lostAt: Double? = nil
        var reported = false
        while !Mailbox.stopped {
            do throws(DaemonClient.ClientError) {
                var client = try DaemonClient.connect(explicit: socket)
                defer { client.close() }
                backoff = Self.firstBackoff
                lostAt = nil
                reported = false
                try follow(&client)
            } catch {
                if !reported {
                    Log.warning("curtaind: \(error); retrying with backoff (up to \(Self.maximumBackoff) s)")
                    reported = true
                }
            }
            let lost = lostAt ?? now()
            lostAt = lost
            if now() - lost >= Self.disconnectGrace, current != nil || lastFrame != nil {
                Log.warning("curtaind is gone for \(Self.disconnectGrace) s: clearing the overlay")
                forget()
                mailbox.publish(.clear)
            }
            // Sleeps no longer than the grace left, so the clear is not late.
            let left = Self.disconnectGrace - (now() - lost)
            let delay = left > 0 ? min(backoff, left) : backoff
            usleep(UInt32(delay * 1_000_000))
            backoff = min(backoff * 2, Self.maximumBackoff)
        }
    }

    private func forget() {
        current = nil
        lastFrame = nil
        finalSeen = false
        sceneOf.removeAll()
    }

    private func follow(_ client: inout DaemonClient) throws(DaemonClient.ClientError) {
        // A second connection for Get, List and GetScene while the first one streams.
        var calls = try DaemonClient.connect(explicit: client.path)
        defer { calls.close() }
        getSceneMissing = false
        Log.info("connected to curtaind at \(client.path)")
        // What is in flight now: after a restart usually nothing (curtaind ends the launches
        // it finds interrupted), so the overlay clears; else it keeps its picture until frames come.
        if case .int(let usec)? = try calls.call("io.curtain.Launcher.GetStatus")["clock_origin_usec"] {
            clockOrigin = Double(usec) / 1e6
        }
        let list = try calls.call("io.curtain.Launcher.List")
        var inFlight: Int64? = nil
        if case .array(let launches)? = list["launches"] {
            for launch in launches {
                guard case .int(let id)? = launch["id"], case .string(let state)? = launch["state"] else { continue }
                if Self.inFlight(state) {
                    inFlight = id
                    break
                }
            }
        }
        if let inFlight {
            if current != inFlight {
                forget()
                current = inFlight
            }
        } else {
            forget()
            mailbox.publish(.clear)
        }
        try client.stream("io.curtain.Launcher.Watch", ["frames": .bool(true)]) {
            reply throws(DaemonClient.ClientError) in
            if let event = reply["event"] { try self.handle(event, &calls) }
            return !Mailbox.stopped
        }
        if !Mailbox.stopped { throw .broken("the Watch stream ended") }
    }

    static func inFlight(_ state: String) -> Bool {
        ["requested", "presenting", "holding", "revealing"].contains(state)
    }

    private func handle(_ event: JSONValue, _ calls: inout DaemonClient) throws(DaemonClient.ClientError) {
        guard case .string(let kind)? = event["kind"], case .int(let launch)? = event["launch"] else { return }
        switch kind {
        case "state":
            guard case .string(let to)? = event["to"] else { return }
            if Self.inFlight(to) {
                if current != launch {
                    forget()
                    current = launch
                }
                if to == "revealing", var frame = lastFrame, !frame.passThrough {
                    frame.passThrough = true
                    lastFrame = frame
                    mailbox.publish(.frame(frame))
                }
            } else if launch == current {
                // revealed: the reveal's final frame stays (retain) with input passing through;
                // without one, or failed or cancelled: nothing stays over the app.
                if to == "revealed", finalSeen, var frame = lastFrame {
                    frame.passThrough = true
                    mailbox.publish(.frame(frame))
                } else {
                    mailbox.publish(.clear)
                }
                current = nil
                lastFrame = nil
                finalSeen = false
                sceneOf[launch] = nil
            }
        case "frame":
            let received = bootTime()
            if current == nil { current = launch }
            guard launch == current else { return }
            guard let values = Self.values(event["values"]) else {
                Log.error("launch \(launch): a frame with unreadable values; clearing the overlay")
                lastFrame = nil
                mailbox.publish(.clear)
                return
            }
            let scene = try sceneFor(launch, &calls)
            var transition = ""
            if case .string(let t)? = event["transition"] { transition = t }
            if case .bool(let f)? = event["final"] { finalSeen = f }
            let frame = FrameContent(
                launch: launch,
                scene: scene.path,
                sceneHash: scene.hash,
                textVariant: scene.textVariant,
                values: values,
                passThrough: transition == "reveal",
                due: clockOrigin.flatMap { origin in event["time"]?.number.map { origin + $0 } },
                received: received
            )
            lastFrame = frame
            mailbox.publish(.frame(frame))
        default:
            return
        }
    }

    /// An Event's `values` ("layer.property" → components) as CurtainCore values; nil if any is bad.
    static func values(_ json: JSONValue?) -> [String: Value]? {
        guard case .object(let object)? = json else { return nil }
        var values: [String: Value] = [:]
        for (key, components) in object {
            guard case .array(let array) = components else { return nil }
            let numbers = array.compactMap(\.number)
            guard numbers.count == array.count, numbers.allSatisfy(\.isFinite),
                let value = Value(wireKey: key, components: numbers)
            else { return nil }
            values[key] = value
        }
        return values
    }

    /// The launch's scene: GetScene (docs: SCENE-CONTRACT), else the preset mapping; --scene
    /// overrides the file. Asked once per launch.
    private func sceneFor(
        _ launch: Int64,
        _ calls: inout DaemonClient
    ) throws(DaemonClient.ClientError) -> (path: String, hash: String?, textVariant: Int) {
        if let known = sceneOf[launch] { return known }
        var result: (path: String, hash: String?, textVariant: Int)? = nil
        if !getSceneMissing {
            do throws(DaemonClient.ClientError) {
                let reply = try calls.call("io.curtain.Launcher.GetScene", ["launch": .int(launch)])
                if case .string(let path)? = reply["scene"]?["path"] {
                    var hash: String? = nil
                    if case .string(let h)? = reply["scene"]?["sha256"] { hash = h }
                    var variant = 0
                    if case .int(let v)? = reply["scene"]?["text_variant"] { variant = Int(v) }
                    result = (scenes.explicit ?? path, scenes.explicit == nil ? hash : nil, variant)
                }
            } catch .daemon(let name, _) where name.hasSuffix("MethodNotFound") {
                Log.info(
                    "curtaind has no GetScene (an older version): scenes from the preset mapping\(scenes.explicit.map { " (--scene \($0))" } ?? "")"
                )
                getSceneMissing = true
            } catch .daemon(let name, _) {
                Log.warning("launch \(launch): GetScene answered \(name); using the preset mapping")
            }
        }
        if result == nil {
            var variant = 0
            if let reply = try? calls.call("io.curtain.Launcher.Get", ["id": .int(launch)]),
                case .int(let v)? = reply["launch"]?["text_variant"]
            {
                variant = Int(v)
            }
            result = (scenes.fallback, nil, variant)
        }
        sceneOf[launch] = result!
        return result!
    }
}

/// Where the scene files are when curtaind does not say (SCENE-CONTRACT's fallback): --scene,
/// else the preset's shipped scene under $CURTAIN_SCENES, share/curtain/scenes next to the
/// installed binary, or the source tree's scenes/.
struct SceneLocator: Sendable {
    let explicit: String?
    let fallback: String

    init(explicit: String?, preset: String = "yula-mask-reveal") {
        self.explicit = explicit
        let relative = Presets.scenes[preset] ?? "yula/yula.scene.json"
        if let explicit {
            fallback = explicit
            return
        }
        if let env = getenv("CURTAIN_SCENES") {
            fallback = String(cString: env) + "/" + relative
            return
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var directory =
            length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
        var candidates: [String] = []
        while let slash = directory.lastIndex(of: "/"), !directory.isEmpty {
            directory = String(directory[..<slash])
            candidates.append(directory + "/share/curtain/scenes/" + relative)
            candidates.append(directory + "/scenes/" + relative)
        }
        fallback = candidates.first { access($0, R_OK) == 0 } ?? "/usr/share/curtain/scenes/" + relative
    }
}
