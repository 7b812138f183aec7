#if canImport(Glibc)
import Glibc
#endif
import CCairo
import CurtainCore

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
    }

    public let path: String
    let directory: String
    let document: [UInt8]
    var assets: [String: Asset] = [:]
    var resolved: (width: Int, height: Int, scene: Scene)?

    /// Reads, validates (at the declared default parameters) and loads every asset of a scene file.
    public init(sceneFile path: String) throws(RenderError) {
        self.path = path
        let slash = path.lastIndex(of: "/")
        directory = slash.map { String(path[..<$0]).isEmpty ? "/" : String(path[..<$0]) } ?? "."
        func fail(_ m: String) -> RenderError { RenderError("\(path): \(m)") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw fail("cannot be read: \(String(cString: strerror(errno)))") }
        guard info.st_size <= Limits.sceneBytes else { throw fail("is \(info.st_size) bytes, more than the limit of \(Limits.sceneBytes)") }
        document = try Asset.readFile(path, limit: Limits.sceneBytes, fail)
        let scene: Scene
        do { scene = try Scene(json: document) } catch { throw RenderError("\(path):\(error.path.first?.isNumber == true ? "" : " ")\(error)") }
        for asset in scene.assetPaths {
            do { assets[asset] = try Asset.load(asset, in: directory) } catch { throw fail(error.message) }
        }
    }

    /// The scene resolved for a screen of `width` × `height` points (one point = one pixel).
    public func scene(width: Int, height: Int) throws(RenderError) -> Scene {
        if let resolved, resolved.width == width, resolved.height == height { return resolved.scene }
        let scene: Scene
        do {
            scene = try Scene(json: document, parameters: ["screen.width": Double(width), "screen.height": Double(height)])
        } catch { throw RenderError("\(path): \(error)") }
        resolved = (width, height, scene)
        return scene
    }

    /// One frame: `values` keyed `layer.property` (a timeline frame's, see
    /// `Timeline.keyedValues`), `textVariant` choosing among text variants. Transparent where
    /// the overlay does not paint, unless `destination` gives a stand-in app colour below.
    /// `previous` is what was on screen before the transition (Plymouth's retain; seed 003):
    /// layers marked `retained` show it in place of their own content.
    public func render(values: [String: Value], width: Int, height: Int, textVariant: Int = 0,
                       destination: Color? = nil, previous: Image? = nil) throws(RenderError) -> Image {
        guard (1...Limits.outputDimension).contains(width), (1...Limits.outputDimension).contains(height) else {
            throw RenderError("the output size \(width)×\(height) is outside 1…\(Limits.outputDimension) in each dimension")
        }
        let scene = try self.scene(width: width, height: height)
        let image = Image(width: width, height: height)
        let cr = cairo_create(image.surface)!
        defer { cairo_destroy(cr) }
        var painter = Painter(scene: scene, assets: assets, values: values, textVariant: textVariant, cr: cr)
        painter.previous = previous
        for layer in scene.layers { painter.draw(layer) }
        guard let destination else { return image }
        let composite = Image(width: width, height: height)
        let out = cairo_create(composite.surface)!
        defer { cairo_destroy(out) }
        cairo_set_source_rgba(out, destination.red, destination.green, destination.blue, destination.alpha)
        cairo_paint(out)
        cairo_set_source_surface(out, image.surface, 0, 0)
        cairo_paint(out)
        return composite
    }
}

/// One frame's drawing pass (3-D layers and blur: Effects.swift).
struct Painter {
    let scene: Scene
    let assets: [String: Asset]
    let values: [String: Value]
    let textVariant: Int
    /// The context drawn into (Effects.swift points a copy at an offscreen surface).
    var cr: OpaquePointer
    /// The previous screen, shown by `retained` layers.
    var previous: Image?
    let maskIDs: Set<String>
    let byID: [String: SceneLayer]

    init(scene: Scene, assets: [String: Asset], values: [String: Value], textVariant: Int, cr: OpaquePointer) {
        self.scene = scene
        self.assets = assets
        self.values = values
        self.textVariant = textVariant
        self.cr = cr
        maskIDs = scene.maskLayerIDs
        byID = Dictionary(scene.allLayers.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Draws a layer in its stacking place (layers used as masks are skipped: they are drawn
    /// only through the layer they mask).
    func draw(_ layer: SceneLayer) {
        guard !maskIDs.contains(layer.id) else { return }
        drawLayer(layer)
    }

    func drawLayer(_ layer: SceneLayer) {
        let p = LayerPresentation(layer, values: values)
        guard p.isVisible else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        if needsEffects(layer, p) { drawWithEffects(layer, p); return }
        applyGeometry(p)
        drawBody(layer, p)
    }

    /// The layer in its own coordinates: contents, sublayers, mask and opacity.
    func drawBody(_ layer: SceneLayer, _ p: LayerPresentation) {
        if layer.role == .destination { drawDestination(layer, p); return }

        let mask = layer.mask.flatMap { maskPattern($0) }
        let grouped = p.opacity < 1 || mask != nil
        if grouped { cairo_push_group(cr) }
        if layer.retained, let previous {
            paintRetained(previous, p.bounds)
        } else {
            paintContents(layer, p)
            for sub in layer.sublayers { draw(sub) }
        }
        if grouped {
            if let mask {
                // Content inside the mask's alpha, then the layer's opacity over the result.
                let content = cairo_pop_group(cr)!
                cairo_push_group(cr)
                cairo_set_source(cr, content)
                cairo_mask(cr, mask)
                cairo_pattern_destroy(content)
                cairo_pattern_destroy(mask)
            }
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, p.opacity)
        }
    }

    /// Layer space → superlayer space: the anchor point sits at `position`, the transform
    /// (scale, then rotation, then translation) applies about it.
    func applyGeometry(_ p: LayerPresentation) {
        let b = p.bounds, t = p.transform
        cairo_translate(cr, p.position.x + t.translationX, p.position.y + t.translationY)
        cairo_rotate(cr, t.rotation)
        cairo_scale(cr, t.scaleX == 0 ? 1e-9 : t.scaleX, t.scaleY == 0 ? 1e-9 : t.scaleY)
        cairo_translate(cr, -(b.x + p.anchorPoint.x * b.width), -(b.y + p.anchorPoint.y * b.height))
    }

    /// The destination rule: clear frame ∩ mask (times the layer's opacity) to alpha 0, then
    /// paint the sublayers there, above the app.
    func drawDestination(_ layer: SceneLayer, _ p: LayerPresentation) {
        let visible = destinationRegion(layer, p)
        defer { cairo_pattern_destroy(visible) }
        cairo_set_operator(cr, CAIRO_OPERATOR_DEST_OUT)
        cairo_set_source_rgba(cr, 0, 0, 0, 1)
        cairo_mask(cr, visible)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        guard !layer.sublayers.isEmpty else { return }
        cairo_push_group(cr)
        for sub in layer.sublayers { draw(sub) }
        cairo_pop_group_to_source(cr)
        cairo_mask(cr, visible)
    }

    /// A destination's visible region as an alpha pattern: its frame (rounded) ∩ its mask,
    /// times its opacity.
    func destinationRegion(_ layer: SceneLayer, _ p: LayerPresentation) -> OpaquePointer {
        let mask = layer.mask.flatMap { maskPattern($0) }
        cairo_push_group_with_content(cr, CAIRO_CONTENT_ALPHA)
        roundedRect(p.bounds, p.cornerRadius)
        cairo_clip(cr)
        if let mask {
            cairo_set_source_rgba(cr, 0, 0, 0, p.opacity)
            cairo_mask(cr, mask)
            cairo_pattern_destroy(mask)
        } else {
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_paint_with_alpha(cr, p.opacity)
        }
        return cairo_pop_group(cr)!
    }

    /// The mask's alpha as a pattern in the masked layer's space (Core Animation: the mask's
    /// geometry is relative to the layer it masks), or nil when the mask layer is hidden — a
    /// hidden mask masks nothing (seed 000 ends with `mask = nil`).
    func maskPattern(_ ref: SceneLayer.Mask) -> OpaquePointer? {
        guard let maskLayer = byID[ref.layer] else { return nil }
        if LayerPresentation(maskLayer, values: values).hidden { return nil }
        cairo_push_group(cr)
        drawLayer(maskLayer)
        let shape = cairo_pop_group(cr)!
        guard ref.inverted else { return shape }
        cairo_push_group_with_content(cr, CAIRO_CONTENT_ALPHA)
        cairo_set_source_rgba(cr, 0, 0, 0, 1)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_DEST_OUT)
        cairo_set_source(cr, shape)
        cairo_paint(cr)
        cairo_pattern_destroy(shape)
        return cairo_pop_group(cr)!
    }

    func roundedRect(_ b: SceneLayer.Rect, _ radius: Double) {
        let r = min(radius, b.width / 2, b.height / 2)
        guard r > 0 else { cairo_rectangle(cr, b.x, b.y, b.width, b.height); return }
        cairo_new_sub_path(cr)
        cairo_arc(cr, b.x + b.width - r, b.y + r, r, -.pi / 2, 0)
        cairo_arc(cr, b.x + b.width - r, b.y + b.height - r, r, 0, .pi / 2)
        cairo_arc(cr, b.x + r, b.y + b.height - r, r, .pi / 2, .pi)
        cairo_arc(cr, b.x + r, b.y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }

    func paintContents(_ layer: SceneLayer, _ p: LayerPresentation) {
        let b = p.bounds
        if let c = p.backgroundColor {
            cairo_set_source_rgba(cr, c.red, c.green, c.blue, c.alpha)
            roundedRect(b, p.cornerRadius)
            cairo_fill(cr)
        }
        if let g = layer.gradient {
            let pattern = cairo_pattern_create_linear(b.x + g.startPoint.x * b.width, b.y + g.startPoint.y * b.height,
                                                      b.x + g.endPoint.x * b.width, b.y + g.endPoint.y * b.height)!
            for (c, location) in zip(g.colors, g.locations) {
                cairo_pattern_add_color_stop_rgba(pattern, location, c.red, c.green, c.blue, c.alpha)
            }
            cairo_set_source(cr, pattern)
            roundedRect(b, p.cornerRadius)
            cairo_fill(cr)
            cairo_pattern_destroy(pattern)
        }
        if let name = layer.contents, let asset = assets[name] { paintImage(asset, layer.contentsGravity, b) }
        if let path = layer.path {
            cairo_new_path(cr)
            for command in path.commands {
                switch command {
                case .move(let x, let y): cairo_move_to(cr, x, y)
                case .line(let x, let y): cairo_line_to(cr, x, y)
                case .cubic(let x1, let y1, let x2, let y2, let x, let y): cairo_curve_to(cr, x1, y1, x2, y2, x, y)
                case .close: cairo_close_path(cr)
                }
            }
            // CAShapeLayer's default fill is opaque black.
            let c = layer.fillColor ?? Color(red: 0, green: 0, blue: 0)
            cairo_set_source_rgba(cr, c.red, c.green, c.blue, c.alpha)
            cairo_set_fill_rule(cr, layer.fillRule == .evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
            cairo_fill(cr)
        }
        if let text = layer.text { paintText(text, b) }
    }

    /// Places an image in the bounds as `contentsGravity` says (y grows downwards, so "top"
    /// is the bounds' minimum y, as in UIKit).
    func paintImage(_ asset: Asset, _ gravity: SceneLayer.Gravity, _ b: SceneLayer.Rect) {
        var w = asset.width, h = asset.height
        switch gravity {
        case .resize: w = b.width; h = b.height
        case .resizeAspect, .resizeAspectFill:
            let sx = b.width / asset.width, sy = b.height / asset.height
            let s = gravity == .resizeAspect ? min(sx, sy) : max(sx, sy)
            w = asset.width * s; h = asset.height * s
        default: break
        }
        let name = gravity.rawValue.lowercased()
        let x = name.hasSuffix("left") ? b.x : name.hasSuffix("right") ? b.x + b.width - w : b.x + (b.width - w) / 2
        let y = name.hasPrefix("top") ? b.y : name.hasPrefix("bottom") ? b.y + b.height - h : b.y + (b.height - h) / 2
        guard w > 0, h > 0 else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        if gravity == .resizeAspectFill {
            cairo_rectangle(cr, b.x, b.y, b.width, b.height)
            cairo_clip(cr)
        }
        cairo_translate(cr, x, y)
        cairo_scale(cr, w / asset.width, h / asset.height)
        switch asset.kind {
        case .svg(let handle):
            var viewport = RsvgRectangle(x: 0, y: 0, width: asset.width, height: asset.height)
            // Checked at load; a render failure leaves the layer empty rather than the frame.
            _ = rsvg_handle_render_document(handle, cr, &viewport, nil)
        case .png(let surface):
            cairo_set_source_surface(cr, surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_paint(cr)
        }
    }

    /// Text laid out by pango in the bounds' width, from their top, with fixed font options
    /// (grey antialiasing, no hinting) so that images are the same on every machine with the
    /// same fonts (fonts-dejavu-core pins DejaVu Sans).
    func paintText(_ text: SceneLayer.Text, _ b: SceneLayer.Rect) {
        let layout = pango_cairo_create_layout(cr)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let options = cairo_font_options_create()!
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(pango_layout_get_context(layout), options)
        cairo_font_options_destroy(options)
        pango_layout_context_changed(layout)
        let font = pango_font_description_from_string(text.font)!
        pango_font_description_set_absolute_size(font, text.fontSize * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        pango_layout_set_width(layout, Int32(max(b.width, 1) * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_alignment(layout, text.alignment == .center ? PANGO_ALIGN_CENTER : text.alignment == .right ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT)
        let string = text.string(variant: textVariant)
        pango_layout_set_text(layout, string, Int32(string.utf8.count))
        cairo_set_source_rgba(cr, text.color.red, text.color.green, text.color.blue, text.color.alpha)
        cairo_move_to(cr, b.x, b.y)
        pango_cairo_show_layout(cr, layout)
    }
}
