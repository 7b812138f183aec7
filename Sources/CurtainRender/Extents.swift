import CCairo
import CurtainCore

#if canImport(Glibc)
import Glibc
#endif

/// A 2-D affine map (cairo's convention: x' = a·x + c·y + tx, y' = b·x + d·y + ty).
struct Affine: Hashable {
    var a = 1.0, b = 0.0, c = 0.0, d = 1.0, tx = 0.0, ty = 0.0

    /// `self ∘ m`: m first, then self.
    func concat(_ m: Affine) -> Affine {
        Affine(
            a: a * m.a + c * m.b,
            b: b * m.a + d * m.b,
            c: a * m.c + c * m.d,
            d: b * m.c + d * m.d,
            tx: a * m.tx + c * m.ty + tx,
            ty: b * m.tx + d * m.ty + ty
        )
    }

    /// Layer space → superlayer space (Core Animation): the anchor point goes to `position`,
    /// the transform (scale, then rotation, then translation) applies about it. A zero scale
    /// stays invertible (cairo refuses singular matrices).
    static func geometry(_ p: LayerPresentation) -> Affine {
        let bounds = p.bounds
        let t = p.transform
        let sx = t.scaleX == 0 ? 1e-9 : t.scaleX
        let sy = t.scaleY == 0 ? 1e-9 : t.scaleY
        let cosr = cos(t.rotation)
        let sinr = sin(t.rotation)
        let ax = bounds.x + p.anchorPoint.x * bounds.width
        let ay = bounds.y + p.anchorPoint.y * bounds.height
        let m = Affine(
            a: cosr * sx,
            b: sinr * sx,
            c: -sinr * sy,
            d: cosr * sy,
            tx: p.position.x + t.translationX,
            ty: p.position.y + t.translationY
        )
        return m.concat(Affine(tx: -ax, ty: -ay))
    }

    func map(_ x: Double, _ y: Double) -> (Double, Double) { (a * x + c * y + tx, b * x + d * y + ty) }

    /// The device-space bounding box of a rectangle.
    func map(_ r: SceneLayer.Rect) -> Box { map(Box(r)) }

    func map(_ box: Box) -> Box {
        let corners = [
            map(box.minX, box.minY), map(box.maxX, box.minY), map(box.minX, box.maxY), map(box.maxX, box.maxY),
        ]
        return Box(
            minX: corners.map(\.0).min()!,
            minY: corners.map(\.1).min()!,
            maxX: corners.map(\.0).max()!,
            maxY: corners.map(\.1).max()!
        )
    }

    var cairo: cairo_matrix_t { cairo_matrix_t(xx: a, yx: b, xy: c, yy: d, x0: tx, y0: ty) }
}

/// An axis-aligned box in some coordinate space.
struct Box: Hashable {
    /// Larger than any frame (device space only: never mapped).
    static let everything = Box(minX: -1e9, minY: -1e9, maxX: 1e9, maxY: 1e9)

    var minX: Double, minY: Double, maxX: Double, maxY: Double

    init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }
    init(_ r: SceneLayer.Rect) { self.init(minX: r.x, minY: r.y, maxX: r.x + r.width, maxY: r.y + r.height) }

    func union(_ o: Box?) -> Box {
        guard let o else { return self }
        return Box(minX: min(minX, o.minX), minY: min(minY, o.minY), maxX: max(maxX, o.maxX), maxY: max(maxY, o.maxY))
    }

    func intersection(_ o: Box) -> Box? {
        let r = Box(minX: max(minX, o.minX), minY: max(minY, o.minY), maxX: min(maxX, o.maxX), maxY: min(maxY, o.maxY))
        return r.maxX > r.minX && r.maxY > r.minY ? r : nil
    }

    /// Whole pixels covering the box and `padding` more on each side (antialiasing reaches a
    /// pixel beyond a shape). Absurd coordinates are clamped (any frame draws); NaN covers all.
    func pixels(padding: Int) -> PixelRect {
        let limit = 1e9
        func clamp(_ v: Double, _ fallback: Double) -> Int { v.isNaN ? Int(fallback) : Int(min(max(v, -limit), limit)) }
        let x0 = clamp(minX.rounded(.down), -limit) - padding
        let y0 = clamp(minY.rounded(.down), -limit) - padding
        let x1 = clamp(maxX.rounded(.up), limit) + padding
        let y1 = clamp(maxY.rounded(.up), limit) + padding
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The pixels the box covers exactly, when its edges lie on pixel boundaries.
    func exactPixels() -> PixelRect? {
        guard [minX, minY, maxX, maxY].allSatisfy({ $0.isFinite && $0.rounded() == $0 && abs($0) < 1e9 }) else {
            return nil
        }
        return PixelRect(x: Int(minX), y: Int(minY), width: Int(maxX - minX), height: Int(maxY - minY))
    }
}

/// Where layers paint, in device space, without drawing them: what a frame must repaint.
struct Extents {
    let index: SceneIndex
    let assets: [String: Asset]
    let cache: LayerCache
    let textVariant: Int
    /// Retained layers show the previous screen over their bounds (not their contents).
    let retainsScreen: Bool

    /// The box (layer coordinates) a layer's own contents can paint: bounds under a background
    /// or gradient, the placed image, the path's control points, the text's ink and logical
    /// extents. Nil when it has none.
    func contentBox(_ layer: SceneLayer, _ p: LayerPresentation) -> Box? {
        var box: Box? = nil
        func add(_ b: Box) { box = b.union(box) }
        if p.backgroundColor != nil || layer.gradient != nil { add(Box(p.bounds)) }
        if let name = layer.contents, let asset = assets[name] {
            var placed = Box(Contents.placement(asset, layer.contentsGravity, p.bounds))
            if layer.contentsGravity == .resizeAspectFill, let clipped = placed.intersection(Box(p.bounds)) {
                placed = clipped
            }
            add(placed)
        }
        if let path = layer.path {
            var xs: [Double] = []
            var ys: [Double] = []
            for command in path.commands {
                switch command {
                case .move(let x, let y), .line(let x, let y):
                    xs.append(x)
                    ys.append(y)
                case .cubic(let x1, let y1, let x2, let y2, let x, let y):
                    xs += [x1, x2, x]
                    ys += [y1, y2, y]
                case .close: break
                }
            }
            if let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() {
                add(Box(minX: x0, minY: y0, maxX: x1, maxY: y1))
            }
        }
        if let text = layer.text { add(cache.textBox(layer.id, text, p.bounds, textVariant)) }
        return box
    }

    /// The device-space box of everything a layer (with its sublayers) paints or, for a
    /// destination, clears; limited by its mask. Nil when nothing shows.
    /// A layer drawn with effects (projected in 3-D, blurred) counts as the whole frame: its
    /// pixels are not an affine image of its bounds (correct first; such layers are few).
    func extent(_ layer: SceneLayer, _ values: [String: Value], _ parent: Affine) -> Box? {
        let p = LayerPresentation(layer, values: values)
        guard p.isVisible else { return nil }
        if Painter.needsEffects(layer, p) { return .everything }
        return body(layer, p, values, parent.concat(.geometry(p)))
    }

    /// `extent` of a visible layer whose own space maps to the device by `m`.
    func body(_ layer: SceneLayer, _ p: LayerPresentation, _ values: [String: Value], _ m: Affine) -> Box? {
        var box: Box? = nil
        if layer.role == .destination || (layer.retained && retainsScreen) {
            box = m.map(p.bounds)
        } else if let local = contentBox(layer, p) {
            box = m.map(local)
        }
        for sub in layer.sublayers
        where !index.maskIDs.contains(sub.id) && !(layer.retained && retainsScreen && layer.role == .overlay) {
            if let e = extent(sub, values, m) { box = e.union(box) }
        }
        if let ref = layer.mask, let maskLayer = index.byID[ref.layer],
            !LayerPresentation(maskLayer, values: values).hidden, !ref.inverted
        {
            guard let shown = extent(maskLayer, values, m), let b = box else { return nil }
            box = b.intersection(shown)
        }
        return box
    }

    /// Every presentation a layer's pixels depend on: its own, its sublayers', its mask's.
    func signature(_ layer: SceneLayer, _ values: [String: Value], into result: inout [LayerPresentation]) {
        result.append(LayerPresentation(layer, values: values))
        for sub in layer.sublayers { signature(sub, values, into: &result) }
        if let ref = layer.mask, let maskLayer = index.byID[ref.layer] { signature(maskLayer, values, into: &result) }
    }

    /// The device region that differs between two frames: for each layer whose presentation
    /// (or its mask's) changed, where it was and where it is; unchanged layers are searched
    /// for changed sublayers.
    func damage(
        _ layers: [SceneLayer],
        from old: [String: Value],
        to new: [String: Value],
        parent: Affine = Affine()
    ) -> PixelRect? {
        var result: Box? = nil
        for layer in layers where !index.maskIDs.contains(layer.id) {
            let before = LayerPresentation(layer, values: old)
            let after = LayerPresentation(layer, values: new)
            var maskSame = true
            if let ref = layer.mask, let maskLayer = index.byID[ref.layer] {
                var a: [LayerPresentation] = []
                var b: [LayerPresentation] = []
                signature(maskLayer, old, into: &a)
                signature(maskLayer, new, into: &b)
                maskSame = a == b
            }
            if before != after || !maskSame {
                if let e = extent(layer, old, parent) { result = e.union(result) }
                if let e = extent(layer, new, parent) { result = e.union(result) }
            } else if after.isVisible, Painter.needsEffects(layer, after) {
                // Projected or blurred: a sublayer's change shows anywhere in the layer.
                var a: [LayerPresentation] = []
                var b: [LayerPresentation] = []
                signature(layer, old, into: &a)
                signature(layer, new, into: &b)
                if a != b { result = Box.everything.union(result) }
            } else if after.isVisible,
                let inner = damage(layer.sublayers, from: old, to: new, parent: parent.concat(.geometry(after)))
            {
                let box = Box(
                    minX: Double(inner.x),
                    minY: Double(inner.y),
                    maxX: Double(inner.x + inner.width),
                    maxY: Double(inner.y + inner.height)
                )
                result = box.union(result)
            }
        }
        return result?.pixels(padding: 2)
    }
}

/// Rasterised layer contents kept between frames. A layer's contents are cached the second
/// time in a row they are drawn with the same device matrix, bounds, colour, corner radius and
/// text variant (a layer animating its scale every frame is never cached: it would be
/// rasterised twice). At most `budget` bytes of pixels are kept; beyond that layers are drawn
/// afresh. Text extents are measured once per layer, variant and width.
final class LayerCache {
    struct Key: Hashable {
        var matrix: Affine
        var bounds: SceneLayer.Rect
        var backgroundColor: Color?
        var cornerRadius: Double
        var textVariant: Int
    }

    final class Entry {
        let surface: OpaquePointer
        let x: Int, y: Int, bytes: Int
        /// Every pixel of the rectangle is opaque (RGB24).
        let opaque: Bool
        var rect: PixelRect {
            PixelRect(
                x: x,
                y: y,
                width: Int(cairo_image_surface_get_width(surface)),
                height: Int(cairo_image_surface_get_height(surface))
            )
        }
        init(surface: OpaquePointer, x: Int, y: Int, bytes: Int, opaque: Bool) {
            self.surface = surface
            self.x = x
            self.y = y
            self.bytes = bytes
            self.opaque = opaque
        }
        deinit { cairo_surface_destroy(surface) }
    }

    let budget: Int
    private(set) var bytes = 0
    private var entries: [String: (key: Key, entry: Entry?)] = [:]
    private var textBoxes: [String: Box] = [:]
    /// Blurred layers' kept pixels (Blur.swift), one per layer, counted in `bytes`.
    private var blurredLayers: [String: BlurredLayer] = [:]
    /// A 1×1 surface's context for measuring text, made on first use.
    private var scratchContext: (surface: OpaquePointer, cr: OpaquePointer)?
    private var scratch: OpaquePointer {
        if let scratchContext { return scratchContext.cr }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)!
        scratchContext = (surface, cairo_create(surface)!)
        return scratchContext!.cr
    }

    init(budget: Int) { self.budget = budget }

    deinit {
        entries.removeAll()
        if let scratchContext {
            cairo_destroy(scratchContext.cr)
            cairo_surface_destroy(scratchContext.surface)
        }
    }

    /// Number of layers whose pixels are cached (tests).
    var cachedLayers: Int { entries.values.filter { $0.entry != nil }.count }

    func isCached(_ id: String) -> Bool { entries[id]?.entry != nil }

    /// The cached pixels of layer `id` drawn as `key` when they are opaque (without making them).
    func opaqueEntry(for id: String, key: Key) -> Entry? {
        guard let current = entries[id], current.key == key, let entry = current.entry, entry.opaque else { return nil }
        return entry
    }

    func removeAll() {
        entries.removeAll()
        textBoxes.removeAll()
        blurredLayers.removeAll()
        bytes = 0
    }

    /// The cached surface of layer `id` drawn as `key`, made now when it was drawn the same way
    /// last time and fits the budget; nil means draw it afresh.
    func surface(for id: String, key: Key, make: () -> Entry?) -> Entry? {
        guard budget > 0 else { return nil }
        if let current = entries[id], current.key == key {
            if let entry = current.entry { return entry }
            guard let entry = make() else { return nil }
            guard bytes + entry.bytes <= budget else { return nil }
            bytes += entry.bytes
            entries[id] = (key, entry)
            return entry
        }
        if let old = entries[id]?.entry { bytes -= old.bytes }
        entries[id] = (key, nil)
        return nil
    }

    /// The kept pixels of blurred layer `id`, whatever they were made for (tests).
    func blurredLayer(_ id: String) -> BlurredLayer? { blurredLayers[id] }

    /// The kept pixels of blurred layer `id` when they were made for `key`.
    func blurred(for id: String, key: BlurredLayer.Key) -> BlurredLayer? {
        guard let kept = blurredLayers[id], kept.key == key else { return nil }
        return kept
    }

    /// Keeps a blurred layer's pixels in place of its previous ones, when they fit the budget.
    func keep(_ layer: BlurredLayer, for id: String) {
        if let old = blurredLayers.removeValue(forKey: id) { bytes -= old.bytes }
        guard budget > 0, bytes + layer.bytes <= budget else { return }
        bytes += layer.bytes
        blurredLayers[id] = layer
    }

    func textBox(_ id: String, _ text: SceneLayer.Text, _ bounds: SceneLayer.Rect, _ variant: Int) -> Box {
        let key = "\(id)\u{0}\(variant % max(text.variants.count, 1))\u{0}\(bounds.width)"
        let origin = (bounds.x, bounds.y)
        if let box = textBoxes[key] {
            return Box(
                minX: box.minX + origin.0,
                minY: box.minY + origin.1,
                maxX: box.maxX + origin.0,
                maxY: box.maxY + origin.1
            )
        }
        let layout = Contents.layout(scratch, text, bounds, variant)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var ink = PangoRectangle()
        var logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        let a = Box(
            minX: Double(ink.x),
            minY: Double(ink.y),
            maxX: Double(ink.x + ink.width),
            maxY: Double(ink.y + ink.height)
        )
        let b = Box(
            minX: Double(logical.x),
            minY: Double(logical.y),
            maxX: Double(logical.x + logical.width),
            maxY: Double(logical.y + logical.height)
        )
        let box = a.union(b)
        textBoxes[key] = box
        return Box(
            minX: box.minX + origin.0,
            minY: box.minY + origin.1,
            maxX: box.maxX + origin.0,
            maxY: box.maxY + origin.1
        )
    }
}
