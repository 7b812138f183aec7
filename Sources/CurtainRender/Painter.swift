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
/// 3-D layers, blur and the retained previous screen: Effects.swift; a layer's own contents: Contents.swift.
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
