import CurtainCore
import CurtainRender
import JSON
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

typealias HTTPPart = HTTPServerResponsePart

/// The page's files, compiled in (Sources/CurtainWeb/Web: no build step, no CDN).
enum WebFiles {
    static let files: [String: (type: String, bytes: [UInt8])] = [
        "/": ("text/html; charset=utf-8", PackageResources.index_html),
        "/index.html": ("text/html; charset=utf-8", PackageResources.index_html),
        "/web.css": ("text/css; charset=utf-8", PackageResources.web_css),
        "/overlay.mjs": ("text/javascript; charset=utf-8", PackageResources.overlay_mjs),
        "/painter.mjs": ("text/javascript; charset=utf-8", PackageResources.painter_mjs),
        "/app.mjs": ("text/javascript; charset=utf-8", PackageResources.app_mjs),
    ]
}

/// curtain-web's HTTP side (NIOHTTP1): the page, scenes and their assets, replays, and the
/// event stream. Read-only: GET and HEAD only, no request bodies, nothing reaches curtaind
/// but Watch, Get and GetScene (made by the relay, not by requests).
public final class WebServer: Sendable {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        public var port = 7480
        public var limits = WebLimits()
        /// Where `/replays/NAME` comes from (nil: no replays served).
        public var replays: String?
        /// The scene the page draws when no launch names one (replays, idle).
        public var defaultScene: String
        /// The screen the frames are computed for (the configuration's), the page's default size.
        public var width = 1920
        public var height = 1080
        public init(defaultScene: String) { self.defaultScene = defaultScene }
    }

    let options: Options
    let hub: Hub
    let scenes: SceneRegistry
    let connections = NIOLockedValueBox(0)
    let sprites: SpriteCache
    let group: MultiThreadedEventLoopGroup

    public init(options: Options, hub: Hub, scenes: SceneRegistry) {
        self.options = options
        self.hub = hub
        self.scenes = scenes
        sprites = SpriteCache(limit: options.limits.sprites)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// Binds and returns the port (the given one, or the kernel's choice for 0).
    public func start() throws -> Int {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                let admitted = connections.withLockedValue { n in
                    guard n < options.limits.connections else { return false }
                    n += 1
                    return true
                }
                guard admitted else { return channel.close() }
                channel.closeFuture.whenComplete { [self] _ in connections.withLockedValue { $0 -= 1 } }
                return channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMap {
                    channel.pipeline.addHandler(RequestHandler(server: self))
                }
            }
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
        let channel = try bootstrap.bind(host: options.host, port: options.port).wait()
        return channel.localAddress?.port ?? options.port
    }
}

/// One connection's requests. Each answer closes the connection (a page loads a handful of
/// files), except the event stream, which stays open.
final class RequestHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: WebServer
    var head: HTTPRequestHead?
    var refused = false
    var stream: StreamClient?

    var headTimer: Scheduled<Void>?

    init(server: WebServer) { self.server = server }

    /// The head must arrive within `requestHeadSeconds` (slowloris); after it, a stream may
    /// stay open as long as it reads (the backlog limit deals with a stalled one).
    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let seconds = server.options.limits.requestHeadSeconds
        headTimer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { headTimer?.cancel() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            headTimer?.cancel()
            self.head = head
            let limits = server.options.limits
            let headBytes =
                head.uri.utf8.count + head.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
            if head.headers.count > limits.requestHeaders {
                refuse(context, .requestHeaderFieldsTooLarge, "more than \(limits.requestHeaders) header lines")
            } else if headBytes > limits.requestHeadBytes {
                refuse(
                    context,
                    .requestHeaderFieldsTooLarge,
                    "the request's head is \(headBytes) bytes, more than \(limits.requestHeadBytes)"
                )
            } else if head.method != .GET && head.method != .HEAD {
                refuse(context, .methodNotAllowed, "read-only: GET and HEAD only")
            } else if let length = head.headers.first(name: "content-length").flatMap({ Int($0) }),
                length > limits.requestBodyBytes
            {
                refuse(
                    context,
                    .payloadTooLarge,
                    "a request body of \(length) bytes; at most \(limits.requestBodyBytes)"
                )
            } else if head.headers.contains(name: "transfer-encoding") {
                refuse(context, .payloadTooLarge, "a request body; at most \(limits.requestBodyBytes) bytes")
            }
        case .body(let body):
            if !refused, body.readableBytes > server.options.limits.requestBodyBytes {
                refuse(
                    context,
                    .payloadTooLarge,
                    "a request body; at most \(server.options.limits.requestBodyBytes) bytes"
                )
            }
        case .end:
            guard !refused, let head else { return }
            route(context, head)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { stream?.flush() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let stream { server.hub.remove(stream) }
        context.fireChannelInactive()
    }

    func refuse(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ why: String) {
        guard !refused else { return }
        refused = true
        respond(context, status, "text/plain; charset=utf-8", Array((why + "\n").utf8))
    }

    func respond(
        _ context: ChannelHandlerContext,
        _ status: HTTPResponseStatus,
        _ type: String,
        _ bytes: [UInt8],
        extra: [(String, String)] = []
    ) {
        var headers = HTTPHeaders(Self.securityHeaders + extra)
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(bytes.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        if head?.method != .HEAD {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))),
                promise: nil
            )
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Scripts and styles only from this server; nothing framed, no plugins: the page draws
    /// scene strings with textContent and canvas, and this stops anything that slipped.
    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]

    func route(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        let (path, query) = Self.split(head.uri)
        guard let parts = Self.segments(path) else {
            return respond(context, .badRequest, "text/plain", Array("bad path\n".utf8))
        }
        if let file = WebFiles.files[path] { return respond(context, .ok, file.type, file.bytes) }
        switch parts.first {
        case "events" where parts.count == 1:
            openStream(context)
        case "scene" where parts.count == 1:
            // The default scene (replays and an idle page): its URL and the default size.
            do {
                let n = try server.scenes.register(path: server.options.defaultScene)
                let body: JSONValue = .object([
                    "scene": .string("/scenes/\(n)/"), "width": .int(Int64(server.options.width)),
                    "height": .int(Int64(server.options.height)),
                ])
                respond(context, .ok, "application/json", Array(JSONWriter.string(body, sortedKeys: true).utf8))
            } catch {
                respond(
                    context,
                    .internalServerError,
                    "text/plain; charset=utf-8",
                    Array((error.description + "\n").utf8)
                )
            }
        case "scenes" where parts.count >= 3:
            guard let n = Int(parts[1]), let document = server.scenes.document(n) else { return notFound(context) }
            if parts.count == 3 && parts[2] == "scene.json" {
                let width = query["width"].flatMap { Int($0) } ?? server.options.width
                let height = query["height"].flatMap { Int($0) } ?? server.options.height
                guard (1...8192).contains(width), (1...8192).contains(height) else {
                    return respond(context, .badRequest, "text/plain", Array("width and height must be 1…8192\n".utf8))
                }
                do {
                    let json = try document.resolved(
                        width: width,
                        height: height,
                        assetBase: "/scenes/\(n)/assets/",
                        spriteBase: "/scenes/\(n)/"
                    )
                    respond(context, .ok, "application/json", Array(JSONWriter.string(json, sortedKeys: true).utf8))
                } catch {
                    respond(
                        context,
                        .internalServerError,
                        "text/plain; charset=utf-8",
                        Array((error.description + "\n").utf8)
                    )
                }
            } else if parts.count == 4, let kind = SceneDocument.SpriteKind(rawValue: parts[2]), let k = Int(parts[3]),
                k >= 0
            {
                contentsSprite(context, n, document, kind, k, query)
            } else if parts[2] == "assets", parts.count > 3 {
                // Only assets the scene names, inside its directory (docs/scene.md's rule).
                let name = parts[3...].joined(separator: "/")
                guard let file = document.assetFile(name),
                    let bytes = try? readRegularFile(file, limit: 8 * 1024 * 1024, { WebError($0) })
                else { return notFound(context) }
                respond(
                    context,
                    .ok,
                    name.hasSuffix(".svg")
                        ? "image/svg+xml" : name.hasSuffix(".png") ? "image/png" : "application/octet-stream",
                    bytes
                )
            } else {
                notFound(context)
            }
        case "replays" where parts.count == 2:
            guard let directory = server.options.replays, !parts[1].hasPrefix("."),
                let file = SceneDocumentPaths.inside(directory, parts[1]),
                let bytes = try? readRegularFile(file, limit: server.options.limits.replayBytes, { WebError($0) })
            else { return notFound(context) }
            respond(context, .ok, "application/x-ndjson", bytes)
        default:
            notFound(context)
        }
    }

    /// `/scenes/N/{text,image}/K?width=W&height=H&variant=V&bounds=x,y,w,h&matrix=a,b,c,d,tx,ty&clip=w,h`:
    /// text layer K's text, or image layer K's image, rasterised by CurtainRender under the
    /// page's device matrix, as a PNG whose top-left device pixel and size are in
    /// `X-Curtain-Sprite` (204: nothing within the clip).
    func contentsSprite(
        _ context: ChannelHandlerContext,
        _ n: Int,
        _ document: SceneDocument,
        _ kind: SceneDocument.SpriteKind,
        _ k: Int,
        _ query: [String: String]
    ) {
        func numbers(_ key: String, _ count: Int) -> [Double]? {
            guard let parts = query[key]?.split(separator: ",", omittingEmptySubsequences: false), parts.count == count
            else { return nil }
            let values = parts.compactMap { Double($0) }.filter(\.isFinite)
            return values.count == count ? values : nil
        }
        let width = query["width"].flatMap { Int($0) } ?? server.options.width
        let height = query["height"].flatMap { Int($0) } ?? server.options.height
        guard (1...8192).contains(width), (1...8192).contains(height),
            let variant = query["variant"].flatMap({ Int($0) }), (0...1_000_000).contains(variant),
            let b = numbers("bounds", 4), let m = numbers("matrix", 6),
            let clip = numbers("clip", 2), (1...8192).contains(clip[0]), (1...8192).contains(clip[1]),
            b[2] >= 0, b[3] >= 0, b.allSatisfy({ abs($0) <= 1e6 })
        else {
            return respond(
                context,
                .badRequest,
                "text/plain",
                Array(
                    "a sprite needs width, height (1…8192), variant, bounds=x,y,w,h, matrix=a,b,c,d,tx,ty and clip=w,h (1…8192), finite\n"
                        .utf8
                )
            )
        }
        let key = "\(n) \(document.path) \(width) \(height) \(kind) \(k) \(variant) \(b) \(m) \(clip)"
        let answer: ContentsSprite?
        if let cached = server.sprites.get(key) {
            answer = cached
        } else {
            let scene: Scene
            do { scene = try document.scene(width: width, height: height) } catch {
                return respond(
                    context,
                    .internalServerError,
                    "text/plain; charset=utf-8",
                    Array((error.description + "\n").utf8)
                )
            }
            let layers = SceneDocument.spriteLayers(scene, kind)
            guard k < layers.count else { return notFound(context) }
            let bounds = SceneLayer.Rect(x: b[0], y: b[1], width: b[2], height: b[3])
            let matrix = (m[0], m[1], m[2], m[3], m[4], m[5])
            let clipRect = PixelRect(x: 0, y: 0, width: Int(clip[0]), height: Int(clip[1]))
            let limit = server.options.limits.spritePixels
            do {
                switch kind {
                case .text:
                    guard let text = layers[k].text else { return notFound(context) }
                    answer = try ContentsSprite.text(
                        text,
                        bounds: bounds,
                        variant: variant,
                        matrix: matrix,
                        clip: clipRect,
                        maximumPixels: limit
                    )
                case .image:
                    // Only an asset the scene names, inside its directory (as /assets/ serves them).
                    guard let name = layers[k].contents, document.assetFile(name) != nil else {
                        return notFound(context)
                    }
                    answer = try ContentsSprite.image(
                        name,
                        in: document.directory,
                        gravity: layers[k].contentsGravity,
                        bounds: bounds,
                        matrix: matrix,
                        clip: clipRect,
                        maximumPixels: limit
                    )
                }
            } catch {
                return respond(
                    context,
                    .payloadTooLarge,
                    "text/plain; charset=utf-8",
                    Array((error.description + "\n").utf8)
                )
            }
            server.sprites.put(key, answer)
        }
        guard let sprite = answer else { return respond(context, .noContent, "image/png", []) }
        respond(
            context,
            .ok,
            "image/png",
            sprite.png,
            extra: [("X-Curtain-Sprite", "\(sprite.x) \(sprite.y) \(sprite.width) \(sprite.height)")]
        )
    }

    func notFound(_ context: ChannelHandlerContext) {
        respond(context, .notFound, "text/plain; charset=utf-8", Array("not found\n".utf8))
    }

    func openStream(_ context: ChannelHandlerContext) {
        let client = StreamClient(channel: context.channel, limit: server.options.limits.streamBacklogBytes)
        guard server.hub.add(client) else {
            return respond(
                context,
                .serviceUnavailable,
                "text/plain; charset=utf-8",
                Array("more than \(server.options.limits.streamClients) streams at once\n".utf8)
            )
        }
        stream = client
        var headers = HTTPHeaders(Self.securityHeaders)
        headers.add(name: "Content-Type", value: "text/event-stream")
        headers.add(name: "Cache-Control", value: "no-store")
        context.writeAndFlush(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
            promise: nil
        )
        client.flush()
    }

    static func split(_ uri: String) -> (String, [String: String]) {
        guard let q = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for pair in uri[uri.index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
        }
        return (String(uri[..<q]), query)
    }

    /// The path's segments, percent-decoded; nil for anything that could leave a directory
    /// (`..`, `.`, empty segments, a NUL, a decoded `/` or `\`).
    static func segments(_ path: String) -> [String]? {
        guard path.hasPrefix("/") else { return nil }
        if path == "/" { return [] }
        var result: [String] = []
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let s = percentDecoded(raw), !s.isEmpty, s != ".", s != "..",
                !s.contains("/"), !s.contains("\\"), !s.utf8.contains(0)
            else { return nil }
            result.append(s)
        }
        return result
    }

    static func percentDecoded(_ s: Substring) -> String? {
        var bytes: [UInt8] = []
        var i = s.utf8.startIndex
        let u = s.utf8
        while i < u.endIndex {
            if u[i] == UInt8(ascii: "%") {
                let a = u.index(after: i)
                guard a < u.endIndex, u.index(after: a) < u.endIndex,
                    let v = UInt8(String(decoding: u[a...u.index(after: a)], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(v)
                i = u.index(a, offsetBy: 2)
            } else {
                bytes.append(u[i])
                i = u.index(after: i)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

enum SceneDocumentPaths {
    /// `directory/name` when it resolves (links followed) inside `directory`.
    static func inside(_ directory: String, _ name: String) -> String? {
        guard let dir = realpath(directory, nil) else { return nil }
        defer { free(dir) }
        guard let file = realpath(directory + "/" + name, nil) else { return nil }
        defer { free(file) }
        let d = String(cString: dir)
        let f = String(cString: file)
        return f.hasPrefix(d == "/" ? "/" : d + "/") ? f : nil
    }
}

/// Contents sprites by their request, at most `limit` (the least recently used dropped first).
final class SpriteCache: Sendable {
    let state = NIOLockedValueBox<(tick: Int, entries: [String: (used: Int, sprite: ContentsSprite?)])>((0, [:]))
    let limit: Int

    init(limit: Int) { self.limit = limit }

    var count: Int { state.withLockedValue { $0.entries.count } }

    func get(_ key: String) -> ContentsSprite?? {
        state.withLockedValue { s in
            guard let entry = s.entries[key] else { return nil }
            s.tick += 1
            s.entries[key] = (s.tick, entry.sprite)
            return .some(entry.sprite)
        }
    }

    func put(_ key: String, _ sprite: ContentsSprite?) {
        state.withLockedValue { s in
            s.tick += 1
            s.entries[key] = (s.tick, sprite)
            if s.entries.count > limit, let oldest = s.entries.min(by: { $0.value.used < $1.value.used })?.key {
                s.entries.removeValue(forKey: oldest)
            }
        }
    }
}
