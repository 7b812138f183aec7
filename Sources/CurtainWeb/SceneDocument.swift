import CurtainCore
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A scene file the page may draw: parsed and validated by CurtainCore (the one parser every
/// renderer shares), resolved for a screen size into plain numbers, and the only files under
/// its directory that are ever served (the assets it names).
public struct SceneDocument: Sendable {
    public let path: String
    public let directory: String
    let bytes: [UInt8]
    let assetPaths: Set<String>

    public init(path: String) throws(WebError) {
        func fail(_ m: String) -> WebError { WebError("\(path): \(m)") }
        bytes = try readRegularFile(path, limit: Scene.Limits.documentSize, fail)
        do { assetPaths = Set(try Scene(json: bytes).assetPaths) } catch { throw fail("\(error)") }
        self.path = path
        let slash = path.lastIndex(of: "/")
        directory = slash.map { String(path[..<$0]).isEmpty ? "/" : String(path[..<$0]) } ?? "."
    }

    /// The scene for a `width` × `height` screen as the page's JSON: every number resolved,
    /// path data as absolute M/L/C/Z commands, colours as [r, g, b, a] in 0…1.
    /// Each text layer's text is drawn from `spriteBase`text/K (K counting text layers in
    /// `spriteLayers(.text)`'s order), each image from `spriteBase`image/K (likewise).
    public func resolved(width: Int, height: Int, assetBase: String, spriteBase: String) throws(WebError) -> JSONValue {
        let scene = try self.scene(width: width, height: height)
        var counts = Counts()
        return .object([
            "name": .string(scene.name), "width": .int(Int64(width)), "height": .int(Int64(height)),
            "masks": .array(scene.maskLayerIDs.sorted().map { .string($0) }),
            "layers": .array(scene.layers.map { Self.layer($0, assetBase, spriteBase, &counts) }),
        ])
    }

    /// What a contents sprite draws: a layer's text or its image.
    public enum SpriteKind: String, Sendable { case text, image }
    struct Counts { var text = 0, image = 0 }

    /// The scene for a `width` × `height` screen.
    public func scene(width: Int, height: Int) throws(WebError) -> Scene {
        do {
            return try Scene(json: bytes, parameters: ["screen.width": Double(width), "screen.height": Double(height)])
        } catch {
            throw WebError("\(path): \(error)")
        }
    }

    /// The text (or image) layers, depth first in stacking order (the numbers of their sprite URLs).
    public static func spriteLayers(_ scene: Scene, _ kind: SpriteKind) -> [SceneLayer] {
        var result: [SceneLayer] = []
        func has(_ l: SceneLayer) -> Bool { kind == .text ? l.text != nil : l.contents != nil }
        func walk(_ layers: [SceneLayer]) {
            for l in layers {
                if has(l) { result.append(l) }
                walk(l.sublayers)
            }
        }
        walk(scene.layers)
        return result
    }

    static func color(_ c: Color) -> JSONValue {
        .array([.float(c.red), .float(c.green), .float(c.blue), .float(c.alpha)])
    }
    static func point(_ p: SceneLayer.Point) -> JSONValue { .array([.float(p.x), .float(p.y)]) }

    static func layer(_ l: SceneLayer, _ assetBase: String, _ spriteBase: String, _ counts: inout Counts) -> JSONValue {
        // Depth first, the layer before its sublayers: spriteLayers' order.
        var sprite: String? = nil
        var imageSprite: String? = nil
        if l.text != nil {
            sprite = spriteBase + "text/" + String(counts.text)
            counts.text += 1
        }
        if l.contents != nil {
            imageSprite = spriteBase + "image/" + String(counts.image)
            counts.image += 1
        }
        var o: [String: JSONValue] = [
            "id": .string(l.id), "key": .string(l.animatedBy ?? l.id), "role": .string(l.role.rawValue),
            "bounds": .array([.float(l.bounds.x), .float(l.bounds.y), .float(l.bounds.width), .float(l.bounds.height)]),
            "position": point(l.position), "anchorPoint": point(l.anchorPoint),
            "opacity": .float(l.opacity), "hidden": .bool(l.hidden), "cornerRadius": .float(l.cornerRadius),
            "retained": .bool(l.retained),
        ]
        o["sublayers"] = .array(l.sublayers.map { layer($0, assetBase, spriteBase, &counts) })
        if let c = l.backgroundColor { o["backgroundColor"] = color(c) }
        if let g = l.gradient {
            o["gradient"] = .object([
                "colors": .array(g.colors.map(color)), "locations": .array(g.locations.map { .float($0) }),
                "startPoint": point(g.startPoint), "endPoint": point(g.endPoint),
            ])
        }
        if let name = l.contents {
            o["contents"] = .string(assetBase + name)
            o["contentsGravity"] = .string(l.contentsGravity.rawValue)
            o["contentsSprite"] = .string(imageSprite ?? "")
        }
        if let path = l.path {
            o["path"] = .array(
                path.commands.map { c in
                    switch c {
                    case .move(let x, let y): .array([.string("M"), .float(x), .float(y)])
                    case .line(let x, let y): .array([.string("L"), .float(x), .float(y)])
                    case .cubic(let x1, let y1, let x2, let y2, let x, let y):
                        .array([.string("C"), .float(x1), .float(y1), .float(x2), .float(y2), .float(x), .float(y)])
                    case .close: .array([.string("Z")])
                    }
                }
            )
            o["fillColor"] = color(l.fillColor ?? Color(red: 0, green: 0, blue: 0))
            o["fillRule"] = .string(l.fillRule == .evenOdd ? "evenodd" : "nonzero")
        }
        if let t = l.text {
            o["text"] = .object([
                "variants": .array(t.variants.map { .string($0) }), "font": .string(t.font),
                "fontSize": .float(t.fontSize),
                "color": color(t.color), "alignment": .string(t.alignment.rawValue), "sprite": .string(sprite ?? ""),
            ])
        }
        if let m = l.mask { o["mask"] = .object(["layer": .string(m.layer), "inverted": .bool(m.inverted)]) }
        return .object(o)
    }

    /// The file of asset `name` if the scene names it and it resolves (symbolic links followed)
    /// inside the scene's directory; nil otherwise, so no other file is ever served.
    public func assetFile(_ name: String) -> String? {
        guard assetPaths.contains(name) else { return nil }
        guard let dir = realpath(directory, nil) else { return nil }
        defer { free(dir) }
        guard let file = realpath(directory + "/" + name, nil) else { return nil }
        defer { free(file) }
        let d = String(cString: dir)
        let f = String(cString: file)
        return f.hasPrefix(d == "/" ? "/" : d + "/") ? f : nil
    }
}

public struct WebError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A regular file's bytes, refused beyond `limit` (checked before reading and while reading).
func readRegularFile(_ path: String, limit: Int, _ fail: (String) -> WebError) throws(WebError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw fail("cannot be read: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw fail("is not a regular file") }
    guard info.st_size <= limit else { throw fail("is \(info.st_size) bytes, more than the limit of \(limit)") }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw fail("cannot be read: \(String(cString: strerror(errno)))")
        }
        if n == 0 { break }
        bytes += buffer[0..<n]
        guard bytes.count <= limit else { throw fail("is more than the limit of \(limit) bytes") }
    }
    return bytes
}
