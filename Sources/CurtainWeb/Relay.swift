import CurtainCore
import CurtainctlSupport
import JSON
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// The scene files the page may load, by a small number in their URL (`/scenes/N/`): each
/// launch's (GetScene), or the fallback. Bounded (`WebLimits.scenes`, the oldest forgotten).
public final class SceneRegistry: Sendable {
    struct Entry {
        var id: Int
        var path: String
        var sha256: String?
        var document: SceneDocument
    }
    let entries = NIOLockedValueBox<(next: Int, list: [Entry])>((0, []))
    let limit: Int

    public init(limit: Int) { self.limit = limit }

    /// The number of the scene at `path` (loaded again when its hash changed).
    public func register(path: String, sha256: String? = nil) throws(WebError) -> Int {
        if let id = entries.withLockedValue({ e in
            e.list.first { $0.path == path && ($0.sha256 == sha256 || sha256 == nil) }?.id
        }) {
            return id
        }
        let document = try SceneDocument(path: path)
        return entries.withLockedValue { e in
            e.list.removeAll { $0.path == path }
            let id = e.next
            e.next += 1
            e.list.append(Entry(id: id, path: path, sha256: sha256, document: document))
            if e.list.count > limit { e.list.removeFirst(e.list.count - limit) }
            return id
        }
    }

    public func document(_ id: Int) -> SceneDocument? {
        entries.withLockedValue { $0.list.first { $0.id == id }?.document }
    }
}

/// Follows curtaind: Watch with frames, relayed to the hub; for each new launch its details
/// (Get) and its scene (GetScene, or the fallback when curtaind predates it). Reconnects with
/// backoff when curtaind goes away. Runs on its own thread: the client is a blocking one.
public final class Relay: Sendable {
    /// Waits between attempts to reach curtaind: doubling from the first to the last.
    public static let firstRetryDelay = 0.05
    public static let lastRetryDelay = 2.0

    let socket: String?
    let fps: Double
    let hub: Hub
    let scenes: SceneRegistry
    let fallbackScene: String

    public init(socket: String?, fps: Double, hub: Hub, scenes: SceneRegistry, fallbackScene: String) {
        self.socket = socket
        self.fps = fps
        self.hub = hub
        self.scenes = scenes
        self.fallbackScene = fallbackScene
    }

    public func start() {
        let thread = ThreadBox(self)
        var tid = pthread_t()
        let box = Unmanaged.passRetained(thread).toOpaque()
        pthread_create(
            &tid,
            nil,
            { arg in
                let t = Unmanaged<ThreadBox>.fromOpaque(arg!).takeRetainedValue()
                t.relay.run()
                return nil
            },
            box
        )
        pthread_detach(tid)
    }

    final class ThreadBox {
        let relay: Relay
        init(_ r: Relay) { relay = r }
    }

    func run() {
        var delay = Self.firstRetryDelay
        var lastReason = ""
        while true {
            do {
                var client = try DaemonClient.connect(explicit: socket)
                defer { client.close() }
                delay = Self.firstRetryDelay
                hub.daemon(connected: true, reason: "watching \(client.path)")
                lastReason = ""
                var known = Set<Int64>()
                try client.stream("io.curtain.Launcher.Watch", ["frames": true, "fps": .float(fps)]) {
                    reply throws(DaemonClient.ClientError) in
                    guard let event = reply["event"], case .int(let id)? = event["launch"] else { return true }
                    if known.insert(id).inserted {
                        if known.count > 1024 { known = [id] }
                        hub.launch(id, describe(id))
                    }
                    hub.event(id, event)
                    return true
                }
            } catch {
                let reason = "\(error)"
                if reason != lastReason {
                    hub.daemon(connected: false, reason: reason)
                    lastReason = reason
                }
            }
            var pause = timespec(tv_sec: Int(delay), tv_nsec: Int((delay - Double(Int(delay))) * 1e9))
            nanosleep(&pause, nil)
            delay = min(delay * 2, Self.lastRetryDelay)
        }
    }

    /// A launch as the page needs it: destination, state, text variant and its scene's URL.
    func describe(_ id: Int64) -> JSONValue {
        var info: [String: JSONValue] = ["id": .int(id)]
        var scenePath = fallbackScene
        var sha: String? = nil
        // A second connection: the first one is busy streaming.
        if var client = try? DaemonClient.connect(explicit: socket) {
            defer { client.close() }
            if let launch = try? client.call("io.curtain.Launcher.Get", ["id": .int(id)])["launch"],
                case .object(let o) = launch
            {
                for key in ["destination", "state", "route", "text_variant", "reason"] {
                    if let v = o[key] { info[key] = v }
                }
            }
            do {
                let reply = try client.call("io.curtain.Launcher.GetScene", ["launch": .int(id)])
                if case .string(let p)? = reply["scene"]?["path"] { scenePath = p }
                if case .string(let s)? = reply["scene"]?["sha256"] { sha = s }
                if let v = reply["scene"]?["text_variant"] { info["text_variant"] = v }
            } catch {
                // An older curtaind (MethodNotFound) or a launch already gone: the fallback scene.
            }
        }
        do {
            let n = try scenes.register(path: scenePath, sha256: sha)
            info["scene"] = .string("/scenes/\(n)/")
        } catch {
            info["scene_error"] = .string(error.description)
        }
        return .object(info)
    }
}
