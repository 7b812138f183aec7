import CCairo
import CurtainCore

#if canImport(Glibc)
import Glibc
#endif

/// Rasterises a scene with a frame's values into an ARGB image, with cairo (shapes, gradients,
/// PNG), librsvg (SVG) and pango (text). Load once (the document is validated and every asset
/// decoded then), render many times.
///
/// Painting follows the scene's order, Core Animation's geometry (position, bounds, anchorPoint,
/// transform about the anchor) and the destination rule of docs/scene.md: a `destination`
/// layer clears its visible region (frame ∩ mask) to alpha 0, so the app below the overlay
/// shows there, and its sublayers paint above the app inside that region.
public final class SceneRenderer {
    public enum Limits {
        /// Largest output width and height, in pixels.
        public static let outputDimension = 8192
        /// Largest scene file, in bytes (the document limit of the core).
        public static let sceneBytes = Scene.Limits.documentSize
        /// Default budget of the static-layer cache, in bytes of pixels (a 1920×1080 ARGB
        /// surface is 7.9 MiB): layers beyond it are drawn afresh every frame.
        public static let cacheBytes = 64 * 1024 * 1024
    }

    public let path: String
    let directory: String
    let document: [UInt8]
    var assets: [String: Asset] = [:]
    var resolved: (width: Int, height: Int, scene: Scene, index: SceneIndex)?
    /// Rasterised layer contents, reused while a layer is drawn the same way (see LayerCache).
    let cache: LayerCache
    /// The previous screen the frame buffer was last drawn with (an incremental frame drawn
    /// with another one repaints everything: retained layers show it).
    weak var lastPreviousScreen: Image?
    /// The index of the top-level layer the last frame's drawing began with (the layers
    /// below it were occluded; tests).
    private(set) var firstDrawn = 0
    /// Bands the blur and the enlargement of a blurred layer are split into, run at once
    /// (`Bands`; 1: on the drawing thread alone). The pixels are the same for any count.
    var bands = Bands.count

    /// Reads, validates (at the declared default parameters) and loads every asset of a scene file.
    /// `cacheBytes` bounds the pixels kept for static layers (0 turns the cache off).
    public init(sceneFile path: String, cacheBytes: Int = Limits.cacheBytes) throws(RenderError) {
        self.path = path
        cache = LayerCache(budget: max(0, cacheBytes))
        let slash = path.lastIndex(of: "/")
        directory = slash.map { String(path[..<$0]).isEmpty ? "/" : String(path[..<$0]) } ?? "."
        func fail(_ m: String) -> RenderError { RenderError("\(path): \(m)") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw fail("cannot be read: \(String(cString: strerror(errno)))") }
        guard info.st_size <= Limits.sceneBytes else {
            throw fail("is \(info.st_size) bytes, more than the limit of \(Limits.sceneBytes)")
        }
        document = try Asset.readFile(path, limit: Limits.sceneBytes, fail)
        let scene: Scene
        do { scene = try Scene(json: document) } catch {
            throw RenderError("\(path):\(error.path.first?.isNumber == true ? "" : " ")\(error)")
        }
        for asset in scene.assetPaths {
            do { assets[asset] = try Asset.load(asset, in: directory) } catch { throw fail(error.message) }
        }
    }

    /// The scene resolved for a screen of `width` × `height` points (one point = one pixel).
    public func scene(width: Int, height: Int) throws(RenderError) -> Scene {
        try resolve(width: width, height: height).scene
    }

    func resolve(width: Int, height: Int) throws(RenderError) -> (scene: Scene, index: SceneIndex) {
        if let resolved, resolved.width == width, resolved.height == height { return (resolved.scene, resolved.index) }
        let scene: Scene
        do {
            scene = try Scene(
                json: document,
                parameters: ["screen.width": Double(width), "screen.height": Double(height)]
            )
        } catch { throw RenderError("\(path): \(error)") }
        let index = SceneIndex(scene)
        resolved = (width, height, scene, index)
        cache.removeAll()
        return (scene, index)
    }

    static func checkSize(_ width: Int, _ height: Int) throws(RenderError) {
        guard (1...Limits.outputDimension).contains(width), (1...Limits.outputDimension).contains(height) else {
            throw RenderError(
                "the output size \(width)×\(height) is outside 1…\(Limits.outputDimension) in each dimension"
            )
        }
    }

    /// A screen of `width` × `height` points at `scale` fits the pixel limit.
    static func checkScale(_ scale: Int, _ width: Int, _ height: Int) throws(RenderError) {
        guard scale >= 1 else {
            throw RenderError("scale \(scale): a scale is a whole number of pixels a point, 1 or more")
        }
        guard scale > 1 else { return }  // points are pixels: makeFrame's check says it
        let w = width.multipliedReportingOverflow(by: scale)
        let h = height.multipliedReportingOverflow(by: scale)
        guard !w.overflow, !h.overflow else {
            throw RenderError(
                "\(width)×\(height) points at scale \(scale) is more than \(Limits.outputDimension) pixels a side"
            )
        }
        guard (1...Limits.outputDimension).contains(w.partialValue),
            (1...Limits.outputDimension).contains(h.partialValue)
        else {
            throw RenderError(
                "\(width)×\(height) points at scale \(scale) is \(w.partialValue)×\(h.partialValue) pixels, outside 1…\(Limits.outputDimension) in each dimension"
            )
        }
    }

    /// A transparent frame buffer for `render(values:into:previous:)`.
    public func makeFrame(width: Int, height: Int) throws(RenderError) -> Image {
        try Self.checkSize(width, height)
        return Image(width: width, height: height)
    }

    /// One frame: `values` keyed `layer.property` (a timeline frame's, see
    /// `Timeline.keyedValues`), `textVariant` choosing among text variants, on a screen of
    /// `width` × `height` points drawn at `scale` pixels a point (an image of width·scale ×
    /// height·scale pixels; see `render(values:into:previous:)`). Transparent where
    /// the overlay does not paint, unless `destination` gives a stand-in app below: a colour,
    /// or an image scaled to fill the frame (`resizeAspectFill`). `previousScreen` is what was
    /// on screen before the transition (Plymouth's retain; seed 003): layers marked `retained`
    /// show it in place of their own content.
    public func render(
        values: [String: Value],
        width points: Int,
        height pointsHigh: Int,
        scale: Int = 1,
        textVariant: Int = 0,
        destination: Color? = nil,
        destinationImage: Image? = nil,
        previousScreen: Image? = nil
    ) throws(RenderError) -> Image {
        try Self.checkScale(scale, points, pointsHigh)
        let (width, height) = (points * scale, pointsHigh * scale)
        let image = try makeFrame(width: width, height: height)
        try render(
            values: values,
            into: image,
            previous: nil,
            scale: scale,
            textVariant: textVariant,
            previousScreen: previousScreen
        )
        guard destination != nil || destinationImage != nil else { return image }
        let composite = Image(width: width, height: height)
        let out = cairo_create(composite.surface)!
        defer { cairo_destroy(out) }
        if let destination {
            cairo_set_source_rgba(out, destination.red, destination.green, destination.blue, destination.alpha)
            cairo_paint(out)
        }
        if let destinationImage {
            // Fills the frame keeping its aspect (centred, cropped), like a screenshot on another screen.
            let s = max(
                Double(width) / Double(destinationImage.width),
                Double(height) / Double(destinationImage.height)
            )
            cairo_save(out)
            cairo_translate(
                out,
                (Double(width) - Double(destinationImage.width) * s) / 2,
                (Double(height) - Double(destinationImage.height) * s) / 2
            )
            cairo_scale(out, s, s)
            cairo_set_source_surface(out, destinationImage.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(out), CAIRO_FILTER_GOOD)
            cairo_paint(out)
            cairo_restore(out)
        }
        cairo_set_source_surface(out, image.surface, 0, 0)
        cairo_paint(out)
        return composite
    }

    /// Draws a frame into `image`, a frame buffer (`makeFrame`) that holds the frame drawn with
    /// `previous` (and the same text variant), repainting only what changed: the region where
    /// some layer's presentation differs, old and new placement. `previous: nil` repaints all.
    /// `previousScreen` is the retained previous screen (see `render(values:width:height:)`),
    /// not the previous frame: a frame drawn with another one than the last repaints all.
    /// Layers drawn with effects (3-D, blur) are never cached and, when they change, repaint
    /// the whole frame. Returns the repainted rectangle (pixels), or nil when nothing changed.
    ///
    /// `scale`: device pixels per point (a HiDPI output's `wl_output.scale`). The scene is laid
    /// out for a screen of image.width/scale × image.height/scale points (`screen.width` is in
    /// points) and drawn through a cairo scale, so the layer cache's keys (the device matrix)
    /// and the damage (device pixels) stay those of the pixels drawn.
    @discardableResult
    public func render(
        values: [String: Value],
        into image: Image,
        previous: [String: Value]?,
        scale: Int = 1,
        textVariant: Int = 0,
        previousScreen: Image? = nil
    ) throws(RenderError) -> PixelRect? {
        try Self.checkSize(image.width, image.height)
        guard scale >= 1, image.width % scale == 0, image.height % scale == 0 else {
            throw RenderError(
                "a \(image.width)×\(image.height) frame cannot be drawn at scale \(scale): the scale is a whole number of pixels a point that divides both sides"
            )
        }
        let (scene, index) = try resolve(width: image.width / scale, height: image.height / scale)
        let device = Affine(a: Double(scale), d: Double(scale))
        let screen = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        let extents = Extents(
            index: index,
            assets: assets,
            cache: cache,
            textVariant: textVariant,
            retainsScreen: previousScreen != nil
        )
        let sameScreen = previousScreen === lastPreviousScreen
        lastPreviousScreen = previousScreen
        let damage: PixelRect?
        if let previous, sameScreen {
            damage = extents.damage(scene.layers, from: previous, to: values, parent: device)?.intersection(screen)
        } else {
            damage = screen
        }
        guard let damage, !damage.isEmpty else { return nil }
        let cr = cairo_create(image.surface)!
        defer { cairo_destroy(cr) }
        cairo_rectangle(cr, Double(damage.x), Double(damage.y), Double(damage.width), Double(damage.height))
        cairo_clip(cr)
        if scale != 1 { cairo_scale(cr, Double(scale), Double(scale)) }
        var painter = Painter(
            index: index,
            assets: assets,
            values: values,
            textVariant: textVariant,
            cr: cr,
            cache: cache,
            extents: extents,
            screen: screen,
            previousScreen: previousScreen
        )
        painter.bands = bands
        painter.opaqueBelow = Self.opaqueColoursBelow(
            scene.layers,
            values: values,
            index: index,
            device: device,
            screen: screen
        )
        // Occlusion: the topmost layer whose cached pixels are opaque over the whole region
        // (or a blurred layer that paints the whole frame opaquely) hides everything below it
        // (and paints over the old pixels: no clear needed).
        var cover: Int? = nil
        for (i, layer) in scene.layers.enumerated().reversed()
        where layer.role == .overlay && !index.maskIDs.contains(layer.id) {
            if painter.blurCovers(layer) {
                cover = i
                break
            }
            let p = LayerPresentation(layer, values: values)
            guard p.isVisible, p.opacity >= 1, layer.mask == nil, !Painter.needsEffects(layer, p),
                !(layer.retained && previousScreen != nil)
            else { continue }
            let key = LayerCache.Key(
                matrix: device.concat(.geometry(p)),
                bounds: p.bounds,
                backgroundColor: p.backgroundColor,
                cornerRadius: p.cornerRadius,
                textVariant: textVariant
            )
            if let entry = cache.opaqueEntry(for: layer.id, key: key), entry.rect.intersection(damage) == damage {
                cover = i
                break
            }
        }
        // A destination cleared opaquely over whole pixels (seed 003's panel) hides what is
        // below it there: those layers are drawn around it (a clip of pixel-aligned boxes, which
        // cairo keeps as a region), not drawn and then cleared.
        let first = cover ?? 0
        firstDrawn = first
        let hole = Self.clearedInterior(scene.layers, from: first, values: values, index: index, device: device)
            .flatMap { found in found.rect.intersection(damage).map { ($0, found.layer) } }
        if let (rect, _) = hole {
            cairo_save(cr)
            // The boxes are in device pixels: drawn without the output's scale, so they stay
            // pixel-aligned at any scale (cairo keeps the clip as a region).
            cairo_identity_matrix(cr)
            cairo_rectangle(cr, Double(damage.x), Double(damage.y), Double(damage.width), Double(damage.height))
            cairo_rectangle(cr, Double(rect.x), Double(rect.y), Double(rect.width), Double(rect.height))
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
            cairo_clip(cr)
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
            if scale != 1 { cairo_scale(cr, Double(scale), Double(scale)) }
        }
        if cover == nil {
            cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
            cairo_paint(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        }
        for (i, layer) in scene.layers.enumerated().dropFirst(first) {
            if let (_, below) = hole, i == below { cairo_restore(cr) }
            painter.draw(layer)
        }
        return damage
    }

    /// Blurred top-level layers drawn straight over an opaque colour that covers the frame —
    /// the layer below them plain (`Painter.isPlain`) and only a background colour (opaque,
    /// square, not turned, opacity 1) — with that colour (`Painter.opaqueBelow`).
    static func opaqueColoursBelow(
        _ layers: [SceneLayer],
        values: [String: Value],
        index: SceneIndex,
        device: Affine,
        screen: PixelRect
    ) -> [String: Color] {
        var found: [String: Color] = [:]
        for (below, layer) in zip(layers, layers.dropFirst())
        where layer.role == .overlay && LayerPresentation(layer, values: values).blurRadius > 0 {
            guard !index.maskIDs.contains(below.id), below.contents == nil, below.gradient == nil,
                below.path == nil, below.text == nil
            else { continue }
            let p = LayerPresentation(below, values: values)
            guard Painter.isPlain(below, p), p.isVisible, p.opacity >= 1, p.cornerRadius == 0,
                let colour = p.backgroundColor, colour.alpha >= 1
            else { continue }
            let m = device.concat(.geometry(p))
            let box = m.map(p.bounds)
            guard m.b == 0, m.c == 0, box.minX <= Double(screen.x), box.minY <= Double(screen.y),
                box.maxX >= Double(screen.x + screen.width), box.maxY >= Double(screen.y + screen.height)
            else { continue }
            found[layer.id] = colour
        }
        return found
    }

    /// The first top-level destination at or after `first` that clears whole pixels opaquely
    /// (opacity 1, no mask showing, no effects, not turned), and the pixels it clears: its
    /// device frame (`device`: the output's scale) shrunk to whole pixels and, with rounded corners, to the rows between them.
    static func clearedInterior(
        _ layers: [SceneLayer],
        from first: Int,
        values: [String: Value],
        index: SceneIndex,
        device: Affine = Affine()
    ) -> (rect: PixelRect, layer: Int)? {
        for (i, layer) in layers.enumerated().dropFirst(first) where layer.role == .destination {
            let p = LayerPresentation(layer, values: values)
            guard p.isVisible, p.opacity >= 1, !Painter.needsEffects(layer, p) else { return nil }
            if let ref = layer.mask, let maskLayer = index.byID[ref.layer],
                !LayerPresentation(maskLayer, values: values).hidden
            {
                return nil
            }
            let m = device.concat(.geometry(p))
            guard m.b == 0, m.c == 0 else { return nil }
            let box = m.map(p.bounds)
            let radius = min(p.cornerRadius, p.bounds.width / 2, p.bounds.height / 2) * abs(m.d)
            let x0 = box.minX.rounded(.up)
            let x1 = box.maxX.rounded(.down)
            let y0 = (box.minY + radius).rounded(.up)
            let y1 = (box.maxY - radius).rounded(.down)
            guard [x0, x1, y0, y1].allSatisfy({ abs($0) < 1e9 }), x1 > x0, y1 > y0 else { return nil }
            return (PixelRect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0)), i)
        }
        return nil
    }
}

extension SceneRenderer {
    /// The region (device pixels) where a frame drawn with `values` differs from one drawn with
    /// `previous` on an image of `width` × `height` pixels at `scale` (what `render(values:into:
    /// previous:)` repaints), without drawing: the damage to report for a frame drawn into
    /// another buffer than the previous frame's. Nil when nothing changed.
    public func damage(
        from previous: [String: Value],
        to values: [String: Value],
        width: Int,
        height: Int,
        scale: Int = 1,
        textVariant: Int = 0
    ) throws(RenderError) -> PixelRect? {
        try Self.checkSize(width, height)
        guard scale >= 1, width % scale == 0, height % scale == 0 else {
            throw RenderError("a \(width)×\(height) frame cannot be drawn at scale \(scale)")
        }
        let (scene, index) = try resolve(width: width / scale, height: height / scale)
        let extents = Extents(
            index: index,
            assets: assets,
            cache: cache,
            textVariant: textVariant,
            retainsScreen: false
        )
        return extents.damage(
            scene.layers,
            from: previous,
            to: values,
            parent: Affine(a: Double(scale), d: Double(scale))
        )?.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
    }
}

/// A rectangle of whole pixels.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var area: Int { isEmpty ? 0 : width * height }
    public func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(x, o.x)
        let y0 = min(y, o.y)
        return PixelRect(
            x: x0,
            y: y0,
            width: max(x + width, o.x + o.width) - x0,
            height: max(y + height, o.y + o.height) - y0
        )
    }
    public func intersection(_ o: PixelRect) -> PixelRect? {
        let x0 = max(x, o.x)
        let y0 = max(y, o.y)
        let x1 = min(x + width, o.x + o.width)
        let y1 = min(y + height, o.y + o.height)
        return x1 > x0 && y1 > y0 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
    public var description: String { "\(width)×\(height)+\(x)+\(y)" }
}
