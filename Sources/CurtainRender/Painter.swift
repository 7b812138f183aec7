import CCairo
import CurtainCore

/// What a frame's drawing needs to look up in the resolved scene, built once per size.
struct SceneIndex {
    let maskIDs: Set<String>
    let byID: [String: SceneLayer]

    init(_ scene: Scene) {
        maskIDs = scene.maskLayerIDs
        byID = Dictionary(scene.allLayers.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

/// One frame's drawing pass. Every group (opacity, mask, destination) is clipped first to the
/// device extent of what it holds, so cairo sizes its offscreen surface to that, not the frame.
/// 3-D layers, blur and the retained previous screen: Effects.swift.
struct Painter {
    let index: SceneIndex
    let assets: [String: Asset]
    let values: [String: Value]
    let textVariant: Int
    /// The context drawn into (Effects.swift points a copy at an offscreen image).
    var cr: OpaquePointer
    /// Nil inside an effect's offscreen image: the cache holds pixels of the frame's device
    /// space, and what is drawn there is transformed (projected, blurred) afterwards.
    var cache: LayerCache?
    let extents: Extents
    /// The device rectangle drawn into: the frame, or an effect's offscreen image.
    var screen: PixelRect
    /// The previous screen, shown by `retained` layers (nil: they draw their own contents).
    let previousScreen: Image?
    /// Top-level layers drawn straight over an opaque colour covering the frame, with that
    /// colour (`SceneRenderer.opaqueColoursBelow`): a faded blurred layer is flattened onto it
    /// (Effects.swift). Empty inside an effect's offscreen image.
    var opaqueBelow: [String: Color] = [:]
    /// Bands a blur and a blurred layer's enlargement are split into (`Bands`).
    var bands = Bands.count

    /// Draws a layer in its stacking place (layers used as masks are skipped: they are drawn
    /// only through the layer they mask).
    func draw(_ layer: SceneLayer) {
        guard !index.maskIDs.contains(layer.id) else { return }
        drawLayer(layer)
    }

    var matrix: Affine {
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        return Affine(a: m.xx, b: m.yx, c: m.xy, d: m.yy, tx: m.x0, ty: m.y0)
    }

    /// Clips to a device-space box (so that a following group is no larger); false when the
    /// box is empty or off the frame (nothing would show).
    func clip(to box: Box?) -> Bool {
        guard let box, let rect = box.pixels(padding: 2).intersection(screen) else { return false }
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        cairo_identity_matrix(cr)
        cairo_rectangle(cr, Double(rect.x), Double(rect.y), Double(rect.width), Double(rect.height))
        cairo_set_matrix(cr, &m)
        cairo_clip(cr)
        return true
    }

    func drawLayer(_ layer: SceneLayer) {
        let p = LayerPresentation(layer, values: values)
        guard p.isVisible else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        if Self.needsEffects(layer, p) {
            drawWithEffects(layer, p)
            return
        }
        applyGeometry(p)
        drawBody(layer, p)
    }

    /// The layer in its own coordinates (the current matrix): contents or the retained screen,
    /// sublayers, mask and opacity; a destination's rule.
    func drawBody(_ layer: SceneLayer, _ p: LayerPresentation) {
        if layer.role == .destination {
            drawDestination(layer, p)
            return
        }

        let retained = layer.retained ? previousScreen : nil
        let maskRef = layer.mask.flatMap { ref in index.byID[ref.layer].map { (ref, $0) } }
            .flatMap { LayerPresentation($0.1, values: values).hidden ? nil : $0.0 }
        let visibleSublayers =
            retained == nil
            && layer.sublayers.contains {
                !index.maskIDs.contains($0.id) && LayerPresentation($0, values: values).isVisible
            }
        // Opacity alone over contents alone needs no group: the contents paint with alpha.
        if maskRef == nil, !visibleSublayers, retained == nil {
            paintContents(layer, p, alpha: p.opacity)
            return
        }
        let grouped = p.opacity < 1 || maskRef != nil
        if grouped {
            guard clip(to: extents.body(layer, p, values, matrix)) else { return }
        }
        let mask = maskRef.flatMap { maskPattern($0) }
        if maskRef != nil, mask == nil { return }  // a mask showing nothing hides the layer
        if grouped { cairo_push_group(cr) }
        if let retained {
            paintRetained(retained, p.bounds)
        } else {
            paintContents(layer, p, alpha: 1)
            for sub in layer.sublayers { draw(sub) }
        }
        if grouped {
            if let mask {
                // Content inside the mask's alpha times the opacity, straight onto what is
                // below (the opacity folded into the A8 mask, not a second ARGB group).
                let content = cairo_pop_group(cr)!
                let shown = p.opacity < 1 ? alphaTimes(mask, p.opacity) : mask
                cairo_set_source(cr, content)
                cairo_mask(cr, shown)
                cairo_pattern_destroy(content)
                if shown != mask { cairo_pattern_destroy(shown) }
                cairo_pattern_destroy(mask)
            } else {
                cairo_pop_group_to_source(cr)
                cairo_paint_with_alpha(cr, p.opacity)
            }
        }
    }

    /// Layer space → superlayer space: the anchor point sits at `position`, the transform
    /// (scale, then rotation, then translation) applies about it.
    func applyGeometry(_ p: LayerPresentation) {
        var m = Affine.geometry(p).cairo
        cairo_transform(cr, &m)
    }

    /// The destination rule: clear frame ∩ mask (times the layer's opacity) to alpha 0, then
    /// paint the sublayers there, above the app.
    func drawDestination(_ layer: SceneLayer, _ p: LayerPresentation) {
        guard clip(to: extents.body(layer, p, values, matrix)) else { return }
        // The frame's clip, unless it covers the region drawn anyway: a clip with fractional
        // edges (a frame scaled 1.05) makes cairo composite everything through a clip mask.
        let frame = matrix.map(p.bounds)
        var x0 = 0.0
        var y0 = 0.0
        var x1 = 0.0
        var y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        let drawn = matrix.map(Box(minX: x0, minY: y0, maxX: x1, maxY: y1))
        let m = matrix
        let masked =
            layer.mask.flatMap { index.byID[$0.layer] }.map { !LayerPresentation($0, values: values).hidden } ?? false
        let above = layer.sublayers.contains {
            !index.maskIDs.contains($0.id) && LayerPresentation($0, values: values).isVisible
        }
        if !(p.cornerRadius == 0 && m.b == 0 && m.c == 0 && frame.minX <= drawn.minX && frame.minY <= drawn.minY
            && frame.maxX >= drawn.maxX && frame.maxY >= drawn.maxY)
        {
            roundedRect(cr, p.bounds, p.cornerRadius)
            if !masked, !above {
                // Nothing else to draw in the frame: clear it as a filled path (cairo's span
                // compositor), not through a clip, which cairo composites through a clip mask
                // the size of the frame (seed 003's panel with its rounded corners).
                cairo_set_operator(cr, CAIRO_OPERATOR_DEST_OUT)
                cairo_set_source_rgba(cr, 0, 0, 0, p.opacity)
                cairo_fill(cr)
                cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
                return
            }
            cairo_clip(cr)
        }
        var mask: OpaquePointer? = nil
        if let ref = layer.mask, let maskLayer = index.byID[ref.layer],
            !LayerPresentation(maskLayer, values: values).hidden
        {
            guard let pattern = maskPattern(ref) else { return }  // the mask shows nothing: nothing cleared
            mask = pattern
        }
        // The visible region's alpha: the mask's (as a source, DEST_OUT clears by its alpha;
        // pixman composites an A8 source much faster than a solid through an A8 mask), times
        // the opacity; without a mask, the clipped frame.
        var visible: OpaquePointer? = mask
        if let m = mask, p.opacity < 1 {
            visible = alphaTimes(m, p.opacity)
            cairo_pattern_destroy(m)
        }
        defer { if let visible { cairo_pattern_destroy(visible) } }
        cairo_set_operator(cr, CAIRO_OPERATOR_DEST_OUT)
        if let visible {
            cairo_set_source(cr, visible)
            cairo_paint(cr)
        } else {
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_paint_with_alpha(cr, p.opacity)
        }
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        guard above else { return }
        // The sublayers' group no larger than what they paint (the mask's box is the clip).
        let painted = layer.sublayers.lazy.filter { !index.maskIDs.contains($0.id) }
            .compactMap { extents.extent($0, values, m) }.reduce(nil as Box?) { $1.union($0) }
        guard clip(to: painted) else { return }
        // One plain sublayer (seed 000's fading logo under the hole): its contents drawn opaque
        // and its opacity folded into the region's alpha (an A8 pass), not a group of its own
        // composited into the sublayers' group.
        let shown = layer.sublayers.filter {
            !index.maskIDs.contains($0.id) && LayerPresentation($0, values: values).isVisible
        }
        var alpha = 1.0
        cairo_push_group(cr)
        if shown.count == 1, let sub = shown.first, Self.isPlain(sub, LayerPresentation(sub, values: values)) {
            let q = LayerPresentation(sub, values: values)
            alpha = q.opacity
            cairo_save(cr)
            applyGeometry(q)
            paintContents(sub, q, alpha: 1)
            cairo_restore(cr)
        } else {
            for sub in layer.sublayers { draw(sub) }
        }
        cairo_pop_group_to_source(cr)
        guard let visible else {
            cairo_paint_with_alpha(cr, p.opacity * alpha)
            return
        }
        if alpha < 1 {
            let faded = alphaTimes(visible, alpha)
            defer { cairo_pattern_destroy(faded) }
            cairo_mask(cr, faded)
        } else {
            cairo_mask(cr, visible)
        }
    }

    /// `pattern`'s alpha times `alpha`: a new A8 pattern the size of the clip, copied and then
    /// scaled in place (a solid IN it: pixman's fast path for A8; DEST_IN is not). Not
    /// `paint_with_alpha` into the new group: onto a clear surface cairo turns OVER into
    /// SOURCE, and pixman has no fast path for SOURCE through a solid mask — ≈ 1 ms for a 714²
    /// group (seed 000's fading logo under the hole) against ≈ 0.1 ms this way (BENCHMARKS.md,
    /// "Rendering a frame").
    func alphaTimes(_ pattern: OpaquePointer, _ alpha: Double) -> OpaquePointer {
        cairo_push_group_with_content(cr, CAIRO_CONTENT_ALPHA)
        cairo_set_source(cr, pattern)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_IN)
        cairo_set_source_rgba(cr, 0, 0, 0, alpha)
        cairo_paint(cr)
        return cairo_pop_group(cr)!  // the pop restores the operator
    }

    /// A layer that is only its own contents at some opacity: no sublayers, mask, effects or
    /// retained screen.
    static func isPlain(_ layer: SceneLayer, _ p: LayerPresentation) -> Bool {
        layer.sublayers.isEmpty && layer.mask == nil && !layer.retained && layer.role != .destination
            && !needsEffects(layer, p)
    }

    /// A destination's visible region as an alpha pattern, in its own coordinates: its frame
    /// (rounded) ∩ its mask, times its opacity (for Effects.swift's projected destinations).
    func destinationRegion(_ layer: SceneLayer, _ p: LayerPresentation) -> OpaquePointer {
        cairo_push_group_with_content(cr, CAIRO_CONTENT_ALPHA)
        roundedRect(cr, p.bounds, p.cornerRadius)
        cairo_clip(cr)
        if let ref = layer.mask, let maskLayer = index.byID[ref.layer],
            !LayerPresentation(maskLayer, values: values).hidden
        {
            // A mask showing nothing leaves the region empty.
            if let mask = maskPattern(ref) {
                cairo_set_source_rgba(cr, 0, 0, 0, p.opacity)
                cairo_mask(cr, mask)
                cairo_pattern_destroy(mask)
            }
        } else {
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_paint_with_alpha(cr, p.opacity)
        }
        return cairo_pop_group(cr)!
    }

    /// The mask's alpha as a pattern in the masked layer's space (Core Animation: the mask's
    /// geometry is relative to the layer it masks), or nil when it shows nothing. Callers
    /// check first that the mask layer is not hidden (a hidden mask masks nothing).
    func maskPattern(_ ref: SceneLayer.Mask) -> OpaquePointer? {
        guard let maskLayer = index.byID[ref.layer] else { return nil }
        let box = extents.extent(maskLayer, values, matrix)
        if !ref.inverted {
            cairo_save(cr)
            defer { cairo_restore(cr) }
            guard clip(to: box) else { return nil }
            cairo_push_group_with_content(cr, CAIRO_CONTENT_ALPHA)
            drawLayer(maskLayer)
            return cairo_pop_group(cr)!
        }
        // Inverted: opaque everywhere but the mask's shape.
        cairo_push_group_with_content(cr, CAIRO_CONTENT_ALPHA)
        cairo_set_source_rgba(cr, 0, 0, 0, 1)
        cairo_paint(cr)
        cairo_save(cr)
        if clip(to: box) {
            cairo_push_group_with_content(cr, CAIRO_CONTENT_ALPHA)
            drawLayer(maskLayer)
            let shape = cairo_pop_group(cr)!
            cairo_set_operator(cr, CAIRO_OPERATOR_DEST_OUT)
            cairo_set_source(cr, shape)
            cairo_paint(cr)
            cairo_pattern_destroy(shape)
        }
        cairo_restore(cr)
        return cairo_pop_group(cr)!
    }

    /// A layer's own contents (background, gradient, image, path, text) with `alpha`: from the
    /// cache when the layer was drawn the same way last time, else drawn afresh.
    func paintContents(_ layer: SceneLayer, _ p: LayerPresentation, alpha: Double) {
        guard Contents.any(layer), alpha > 0 else { return }
        let m = matrix
        let key = LayerCache.Key(
            matrix: m,
            bounds: p.bounds,
            backgroundColor: p.backgroundColor,
            cornerRadius: p.cornerRadius,
            textVariant: textVariant
        )
        if let cache, let entry = cache.surface(for: layer.id, key: key, make: { makeCached(layer, p, m) }) {
            cairo_save(cr)
            cairo_identity_matrix(cr)
            cairo_set_source_surface(cr, entry.surface, Double(entry.x), Double(entry.y))
            if alpha < 1 { cairo_paint_with_alpha(cr, alpha) } else { cairo_paint(cr) }
            cairo_restore(cr)
            return
        }
        guard alpha < 1 else {
            Contents(assets: assets, textVariant: textVariant).paint(cr, layer, p)
            return
        }
        // The group no larger than the contents (it would be the clip's size: the whole frame
        // inside a destination's group), as for every other group.
        cairo_save(cr)
        defer { cairo_restore(cr) }
        guard clip(to: extents.contentBox(layer, p).map { m.map($0) }) else { return }
        cairo_push_group(cr)
        Contents(assets: assets, textVariant: textVariant).paint(cr, layer, p)
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, alpha)
    }

    /// Rasterises a layer's contents at device matrix `m` into a surface covering their device
    /// extent on the frame; RGB24 (copied, not blended, when drawn) when they fill it opaquely.
    func makeCached(_ layer: SceneLayer, _ p: LayerPresentation, _ m: Affine) -> LayerCache.Entry? {
        let contents = Contents(assets: assets, textVariant: textVariant)
        guard let local = extents.contentBox(layer, p) else { return nil }
        var rect: PixelRect
        var opaque = false
        let device = m.map(p.bounds)
        if contents.fillsBoundsOpaquely(layer, p), local == Box(p.bounds), m.b == 0, m.c == 0,
            let exact = device.exactPixels(), let onScreen = exact.intersection(screen)
        {
            rect = onScreen
            opaque = true
        } else {
            guard let r = m.map(local).pixels(padding: 2).intersection(screen) else { return nil }
            rect = r
        }
        let surface = cairo_image_surface_create(
            opaque ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32,
            Int32(rect.width),
            Int32(rect.height)
        )!
        let c = cairo_create(surface)!
        var shifted = Affine(a: 1, b: 0, c: 0, d: 1, tx: -Double(rect.x), ty: -Double(rect.y)).concat(m).cairo
        cairo_set_matrix(c, &shifted)
        contents.paint(c, layer, p)
        cairo_destroy(c)
        cairo_surface_flush(surface)
        return LayerCache.Entry(surface: surface, x: rect.x, y: rect.y, bytes: rect.area * 4, opaque: opaque)
    }
}

/// Painting a layer's own contents, in its coordinates: background colour, gradient, image,
/// path, text.
struct Contents {
    let assets: [String: Asset]
    let textVariant: Int

    static func any(_ layer: SceneLayer) -> Bool {
        layer.role != .destination
            && (layer.backgroundColor != nil || layer.gradient != nil || layer.contents != nil || layer.path != nil
                || layer.text != nil)
    }

    /// Whether the background or gradient covers the bounds with opaque colour (square corners).
    func fillsBoundsOpaquely(_ layer: SceneLayer, _ p: LayerPresentation) -> Bool {
        guard p.cornerRadius == 0, p.bounds.width > 0, p.bounds.height > 0 else { return false }
        if let c = p.backgroundColor, c.alpha >= 1 { return true }
        if let g = layer.gradient, g.colors.allSatisfy({ $0.alpha >= 1 }) { return true }
        return false
    }

    func paint(_ cr: OpaquePointer, _ layer: SceneLayer, _ p: LayerPresentation) {
        let b = p.bounds
        if let c = p.backgroundColor {
            cairo_set_source_rgba(cr, c.red, c.green, c.blue, c.alpha)
            roundedRect(cr, b, p.cornerRadius)
            cairo_fill(cr)
        }
        if let g = layer.gradient {
            let pattern = cairo_pattern_create_linear(
                b.x + g.startPoint.x * b.width,
                b.y + g.startPoint.y * b.height,
                b.x + g.endPoint.x * b.width,
                b.y + g.endPoint.y * b.height
            )!
            for (c, location) in zip(g.colors, g.locations) {
                cairo_pattern_add_color_stop_rgba(pattern, location, c.red, c.green, c.blue, c.alpha)
            }
            cairo_set_source(cr, pattern)
            roundedRect(cr, b, p.cornerRadius)
            cairo_fill(cr)
            cairo_pattern_destroy(pattern)
        }
        if let name = layer.contents, let asset = assets[name] { paintImage(cr, asset, layer.contentsGravity, b) }
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
        if let text = layer.text { Self.paintText(cr, text, b, textVariant) }
    }

    /// A text layer's text at the top of its bounds (also curtain-web's text sprites, ContentsSprite).
    static func paintText(_ cr: OpaquePointer, _ text: SceneLayer.Text, _ b: SceneLayer.Rect, _ variant: Int) {
        let layout = layout(cr, text, b, variant)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        cairo_set_source_rgba(cr, text.color.red, text.color.green, text.color.blue, text.color.alpha)
        cairo_move_to(cr, b.x, b.y)
        pango_cairo_show_layout(cr, layout)
    }

    /// Where an image sits in the bounds, as `contentsGravity` says (y grows downwards, so
    /// "top" is the bounds' minimum y, as in UIKit).
    static func placement(_ asset: Asset, _ gravity: SceneLayer.Gravity, _ b: SceneLayer.Rect) -> SceneLayer.Rect {
        var w = asset.width
        var h = asset.height
        switch gravity {
        case .resize:
            w = b.width
            h = b.height
        case .resizeAspect, .resizeAspectFill:
            let sx = b.width / asset.width
            let sy = b.height / asset.height
            let s = gravity == .resizeAspect ? min(sx, sy) : max(sx, sy)
            w = asset.width * s
            h = asset.height * s
        default: break
        }
        let name = gravity.rawValue.lowercased()
        let x = name.hasSuffix("left") ? b.x : name.hasSuffix("right") ? b.x + b.width - w : b.x + (b.width - w) / 2
        let y = name.hasPrefix("top") ? b.y : name.hasPrefix("bottom") ? b.y + b.height - h : b.y + (b.height - h) / 2
        return .init(x: x, y: y, width: w, height: h)
    }

    /// An image in its placement (also curtain-web's image sprites, ContentsSprite).
    func paintImage(_ cr: OpaquePointer, _ asset: Asset, _ gravity: SceneLayer.Gravity, _ b: SceneLayer.Rect) {
        let r = Self.placement(asset, gravity, b)
        guard r.width > 0, r.height > 0 else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        if gravity == .resizeAspectFill {
            cairo_rectangle(cr, b.x, b.y, b.width, b.height)
            cairo_clip(cr)
        }
        cairo_translate(cr, r.x, r.y)
        cairo_scale(cr, r.width / asset.width, r.height / asset.height)
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
    static func layout(
        _ cr: OpaquePointer,
        _ text: SceneLayer.Text,
        _ b: SceneLayer.Rect,
        _ variant: Int
    ) -> OpaquePointer {
        let layout = pango_cairo_create_layout(cr)!
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
        pango_layout_set_width(layout, Int32(max(min(b.width, 1e6), 1) * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_alignment(
            layout,
            text.alignment == .center
                ? PANGO_ALIGN_CENTER : text.alignment == .right ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT
        )
        let string = text.string(variant: variant)
        pango_layout_set_text(layout, string, Int32(string.utf8.count))
        return layout
    }
}

func roundedRect(_ cr: OpaquePointer, _ b: SceneLayer.Rect, _ radius: Double) {
    let r = min(radius, b.width / 2, b.height / 2)
    guard r > 0 else {
        cairo_rectangle(cr, b.x, b.y, b.width, b.height)
        return
    }
    cairo_new_sub_path(cr)
    cairo_arc(cr, b.x + b.width - r, b.y + r, r, -.pi / 2, 0)
    cairo_arc(cr, b.x + b.width - r, b.y + b.height - r, r, 0, .pi / 2)
    cairo_arc(cr, b.x + r, b.y + b.height - r, r, .pi / 2, .pi)
    cairo_arc(cr, b.x + r, b.y + r, r, .pi, 3 * .pi / 2)
    cairo_close_path(cr)
}
