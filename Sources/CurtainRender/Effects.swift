import CCairo
import CPixelLoops
import CurtainCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// What cairo's 2-D model cannot draw directly, kept apart from the painter's ordinary path:
// a layer turned about its vertical axis in perspective (seed 001's flip), a blurred layer
// (seed 003; the blur itself and its kept images: Blur.swift), and the retained previous screen.

extension Painter {
    /// Largest side of a 3-D layer's offscreen image, in pixels.
    static let maximumProjectedSide = 4096.0

    static func needsEffects(_ layer: SceneLayer, _ p: LayerPresentation) -> Bool {
        p.transform.hasDepth || (p.blurRadius > 0 && layer.role == .overlay)
    }

    func drawWithEffects(_ layer: SceneLayer, _ p: LayerPresentation) {
        if p.transform.hasDepth { drawProjected(layer, p) } else { drawBlurred(layer, p) }
    }

    /// The previous screen, stretched over the layer's bounds.
    func paintRetained(_ image: Image, _ b: SceneLayer.Rect) {
        guard image.width > 0, image.height > 0, b.width > 0, b.height > 0 else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_rectangle(cr, b.x, b.y, b.width, b.height)
        cairo_clip(cr)
        cairo_translate(cr, b.x, b.y)
        cairo_scale(cr, b.width / Double(image.width), b.height / Double(image.height))
        cairo_set_source_surface(cr, image.surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        // Scaled, the filter samples past the image's edge: PAD repeats the edge pixels there
        // instead of fading the border towards transparent.
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
        cairo_paint(cr)
    }

    /// This painter drawing into an offscreen image's context (its whole surface), without
    /// the layer cache (its pixels belong to the frame's device space).
    func offscreenPainter(_ context: OpaquePointer) -> Painter {
        var painter = self
        painter.cr = context
        painter.cache = nil
        painter.opaqueBelow = [:]
        let target = cairo_get_target(context)!
        painter.screen = PixelRect(
            x: 0,
            y: 0,
            width: Int(cairo_image_surface_get_width(target)),
            height: Int(cairo_image_surface_get_height(target))
        )
        return painter
    }

    /// Device pixels per user unit of the current transformation (its area scale).
    func deviceScale(_ context: OpaquePointer) -> Double {
        var m = cairo_matrix_t()
        cairo_get_matrix(context, &m)
        return max(abs(m.xx * m.yy - m.xy * m.yx).squareRoot(), 1e-6)
    }

    /// A transparent image the size of the context's target, drawn with the context's current
    /// transformation (so it lines up with the target pixel for pixel).
    func deviceSizedLayer(like context: OpaquePointer) -> (surface: OpaquePointer, context: OpaquePointer) {
        let target = cairo_get_target(context)!
        let surface = cairo_image_surface_create(
            CAIRO_FORMAT_ARGB32,
            cairo_image_surface_get_width(target),
            cairo_image_surface_get_height(target)
        )!
        let offscreen = cairo_create(surface)!
        var m = cairo_matrix_t()
        cairo_get_matrix(context, &m)
        cairo_set_matrix(offscreen, &m)
        return (surface, offscreen)
    }

    /// Paints a device-sized image onto the context, pixel for pixel.
    func composite(_ surface: OpaquePointer, _ op: cairo_operator_t) {
        cairo_save(cr)
        cairo_identity_matrix(cr)
        cairo_set_operator(cr, op)
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    /// The layer blurred, as compositors do it: its pixels (opacity 1, unblurred) are drawn
    /// once into a device-sized image and reduced to ½ and ¼ size by 2×2 averages (a
    /// `BlurredLayer`, kept while the layer's content and placement stay the same: seed 003's
    /// retained screen is the same for a whole launch). A frame takes the reduction its σ
    /// allows (`Blur.plan`), blurs it by what is left of σ after the reduction's own
    /// softening, and scales it up with bilinear filtering onto the frame, with the opacity.
    /// Only the small image is blurred, and only when the kernel changes (`Blur.kernel`: box
    /// widths and tap weights are whole numbers, so neighbouring σ share one).
    /// What a blurred layer's kept pixels are made for (`BlurredLayer.Key`), the layer as
    /// they are drawn (opacity 1, sharp), and its σ in device pixels.
    func blurredKey(
        _ layer: SceneLayer,
        _ p: LayerPresentation
    ) -> (
        key: BlurredLayer.Key, flat: LayerPresentation, sigma: Double
    ) {
        let parent = matrix
        let m = parent.concat(.geometry(p))
        let sigma = p.blurRadius * max(abs(m.a * m.d - m.b * m.c).squareRoot(), 1e-6)
        var flat = p
        flat.opacity = 1
        flat.blurRadius = 0
        var signature: [LayerPresentation] = []
        extents.signature(layer, values, into: &signature)
        signature[0] = flat
        let target = cairo_get_target(cr)!
        let key = BlurredLayer.Key(
            presentations: signature,
            matrix: parent,
            screen: layer.retained ? previousScreen.map(ObjectIdentifier.init) : nil,
            textVariant: textVariant,
            width: Int(cairo_image_surface_get_width(target)),
            height: Int(cairo_image_surface_get_height(target))
        )
        return (key, flat, sigma)
    }

    /// Whether a top-level blurred layer drawn now paints every pixel opaquely — its kept
    /// pixels opaque everywhere (`BlurredLayer.isOpaque`) and drawn at opacity 1 or flattened
    /// onto the colour below (`opaqueBelow`) — so that what is below it need not be drawn
    /// (seed 003's black container: a 1080p copy a frame). False until its pixels are kept.
    func blurCovers(_ layer: SceneLayer) -> Bool {
        let p = LayerPresentation(layer, values: values)
        guard p.isVisible, layer.role == .overlay, p.blurRadius > 0, !p.transform.hasDepth else { return false }
        let (key, _, sigma) = blurredKey(layer, p)
        guard let blurred = cache?.blurred(for: layer.id, key: key) else { return false }
        let factor = Blur.factors[Blur.plan(sigma: sigma).level]
        return blurred.isOpaque(factor: factor)
            && (p.opacity >= 1 || (factor >= 2 && opaqueBelow[layer.id] != nil))
    }

    func drawBlurred(_ layer: SceneLayer, _ p: LayerPresentation) {
        let parent = matrix
        let (key, flat, sigma) = blurredKey(layer, p)
        let made = cache?.blurred(for: layer.id, key: key)
        let blurred =
            made
            ?? BlurredLayer(key: key, retaining: layer.retained ? previousScreen : nil) { context in
                var device = parent.cairo
                cairo_set_matrix(context, &device)
                let painter = offscreenPainter(context)
                painter.applyGeometry(flat)
                painter.drawBody(layer, flat)
            }
        if made == nil { cache?.keep(blurred, for: layer.id) }
        var (factor, surface) = blurred.frame(sigma: sigma, bands: bands)
        // From a reduction, the opacity is applied to the small image before it is enlarged,
        // and kept until the image or the opacity change: enlarging with a constant alpha costs
        // pixman ≈ 1–2 ms more per 1080p frame than enlarging alone, fading ¼ or 1/16 of the
        // pixels (a copy, then DEST_IN) far less. The blurred image itself stays unfaded, so a
        // frame that changes only the opacity does not blur again. Over an opaque colour that
        // covers the frame (seed 003's black container), an opaque image is faded onto that
        // colour: the enlargement then copies an opaque source instead of blending (1080p:
        // ≈ 1.7 against ≈ 2.6 ms in C).
        var alpha = p.opacity
        // Opaque in every pixel: enlarged by CPixelLoops, not blended.
        var opaque = false
        if factor >= 2, alpha < 1 {
            let over = opaqueBelow[layer.id].flatMap { blurred.isOpaque(factor: factor) ? $0 : nil }
            surface = blurred.faded(surface, opacity: alpha, over: over)
            opaque = over != nil
            alpha = 1
        } else if factor >= 2 {
            opaque = blurred.isOpaque(factor: factor)
        }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_identity_matrix(cr)
        if alpha >= 1, factor >= 2, paintEnlarged(surface, factor: factor, opaque: opaque, bands: bands) { return }
        cairo_scale(cr, Double(factor), Double(factor))
        cairo_set_source_surface(cr, surface, 0, 0)
        // Bilinear (GOOD would be the same when enlarging); PAD repeats the edge pixels at the
        // frame's border, as the blur clamps there.
        cairo_pattern_set_filter(cairo_get_source(cr), factor == 1 ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_BILINEAR)
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
        if alpha < 1 { cairo_paint_with_alpha(cr, alpha) } else { cairo_paint(cr) }
    }

    /// Paints `source` enlarged by `factor` (bilinear, edges padded, OVER) over the whole
    /// clip, the frame split into bands of rows painted at once (`Bands`). An opaque source
    /// (every pixel: OVER is a copy) is enlarged by `curtain_enlarge` (CPixelLoops: fixed
    /// weights per phase, AVX2 where the CPU has it) straight into the frame's pixels, always,
    /// so that a damaged region and a full repaint get the same pixels. Otherwise pixman
    /// paints each band: a surface of its own over the frame's pixels and a source of its own
    /// over the image's (two cairo objects are never used by two threads), translated by whole
    /// rows, so it samples the same points as one paint would. False when neither can (drawing
    /// into a group, a clip that is not a set of rectangles, another operator; for pixman one
    /// band or too few pixels to be worth it): the caller paints it whole. The context's matrix
    /// must be the identity.
    func paintEnlarged(_ source: OpaquePointer, factor: Int, opaque: Bool, bands: Int) -> Bool {
        guard cairo_get_operator(cr) == CAIRO_OPERATOR_OVER, let target = cairo_get_target(cr),
            cairo_get_group_target(cr) == target, cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
            cairo_surface_get_type(source) == CAIRO_SURFACE_TYPE_IMAGE
        else { return false }
        var dx = 0.0
        var dy = 0.0
        cairo_surface_get_device_offset(target, &dx, &dy)
        let format = cairo_image_surface_get_format(target)
        guard dx == 0, dy == 0, format == CAIRO_FORMAT_ARGB32 || format == CAIRO_FORMAT_RGB24,
            let list = cairo_copy_clip_rectangle_list(cr)
        else { return false }
        defer { cairo_rectangle_list_destroy(list) }
        guard list.pointee.status == CAIRO_STATUS_SUCCESS else { return false }
        let width = Int(cairo_image_surface_get_width(target))
        let height = Int(cairo_image_surface_get_height(target))
        // Whole pixels (the clip is the damage and the destination's interior: pixel-aligned).
        let rectangles = (0..<Int(list.pointee.num_rectangles)).compactMap { i -> PixelRect? in
            let r = list.pointee.rectangles[i]
            return PixelRect(
                x: Int(r.x.rounded()),
                y: Int(r.y.rounded()),
                width: Int((r.x + r.width).rounded() - r.x.rounded()),
                height: Int((r.y + r.height).rounded() - r.y.rounded())
            ).intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        }
        let sourceWidth = Int(cairo_image_surface_get_width(source))
        let sourceHeight = Int(cairo_image_surface_get_height(source))
        let enlargeable = opaque && [2, 4, 8].contains(factor) && sourceWidth * factor >= width
        let area = rectangles.reduce(0) { $0 + $1.width * $1.height }
        guard enlargeable || (bands > 1 && Double(area) >= Self.smallestBandedArea) else { return false }
        cairo_surface_flush(target)
        cairo_surface_flush(source)
        guard let pixels = cairo_image_surface_get_data(target), let sourcePixels = cairo_image_surface_get_data(source)
        else { return false }
        let stride = Int(cairo_image_surface_get_stride(target))
        let sourceFormat = cairo_image_surface_get_format(source)
        let sourceStride = cairo_image_surface_get_stride(source)
        if enlargeable {
            let frame = UnsafeMutableRawPointer(pixels).assumingMemoryBound(to: UInt32.self)
            let image = UnsafeRawPointer(sourcePixels).assumingMemoryBound(to: UInt32.self)
            let failed = Atomic(false)
            Bands.run(height, bands: bands, minimum: 64) { rows in
                for r in rectangles {
                    let y0 = max(r.y, rows.lowerBound)
                    let y1 = min(r.y + r.height, rows.upperBound)
                    guard y1 > y0 else { continue }
                    let done = curtain_enlarge(
                        frame,
                        stride / 4,
                        r.x,
                        r.x + r.width,
                        y0,
                        y1,
                        image,
                        Int(sourceStride) / 4,
                        sourceWidth,
                        sourceHeight,
                        Int32(factor)
                    )
                    if !done { failed.store(true, ordering: .relaxed) }
                }
            }
            cairo_surface_mark_dirty(target)
            // Out of memory for a work row: nothing of that rectangle was written; cairo paints it all.
            return !failed.load(ordering: .relaxed)
        }
        Bands.run(height, bands: bands, minimum: 64) { rows in
            let band = cairo_image_surface_create_for_data(
                pixels + rows.lowerBound * stride,
                format,
                Int32(width),
                Int32(rows.count),
                Int32(stride)
            )!
            let image = cairo_image_surface_create_for_data(
                sourcePixels,
                sourceFormat,
                Int32(sourceWidth),
                Int32(sourceHeight),
                sourceStride
            )!
            let context = cairo_create(band)!
            cairo_translate(context, 0, -Double(rows.lowerBound))
            for r in rectangles {
                cairo_rectangle(context, Double(r.x), Double(r.y), Double(r.width), Double(r.height))
            }
            cairo_clip(context)
            cairo_scale(context, Double(factor), Double(factor))
            cairo_set_source_surface(context, image, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_BILINEAR)
            cairo_pattern_set_extend(cairo_get_source(context), CAIRO_EXTEND_PAD)
            cairo_paint(context)
            cairo_destroy(context)
            cairo_surface_destroy(image)
            cairo_surface_finish(band)
            cairo_surface_destroy(band)
        }
        cairo_surface_mark_dirty(target)
        return true
    }

    /// Fewest clipped pixels an enlargement is split into bands for (below it the threads'
    /// start costs more than they save).
    static let smallestBandedArea = 128.0 * 128.0

    /// A layer with a y rotation: drawn flat (scaled, unrotated) into an image, then mapped onto
    /// its perspective projection. The projection of a y rotation keeps each column of the
    /// layer a vertical segment (x' = u·cos θ / w(u), y' = v / w(u)), so the image is drawn in
    /// thin vertical strips, each an affine map onto its trapezoid — exact at the strip's
    /// edges, within a fraction of a pixel inside (cairo has no projective patterns). Strips are
    /// summed with ADD so that their shared antialiased edges add up to full coverage.
    func drawProjected(_ layer: SceneLayer, _ p: LayerPresentation) {
        let b = p.bounds
        let t = p.transform
        let width = b.width * abs(t.scaleX)
        let height = b.height * abs(t.scaleY)
        guard width > 0, height > 0, width.isFinite, height.isFinite else { return }
        // The flat image's resolution: the device's, bounded.
        cairo_translate(cr, p.position.x + t.translationX, p.position.y + t.translationY)
        cairo_rotate(cr, t.rotation)
        let k = min(deviceScale(cr), Self.maximumProjectedSide / width, Self.maximumProjectedSide / height)
        let pixelsWide = max(1, Int((width * k).rounded(.up)))
        let pixelsHigh = max(1, Int((height * k).rounded(.up)))

        func flat(_ draw: (Painter) -> Void) -> OpaquePointer {
            let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pixelsWide), Int32(pixelsHigh))!
            let context = cairo_create(surface)!
            cairo_scale(context, Double(pixelsWide) / b.width, Double(pixelsHigh) / b.height)
            cairo_translate(context, -b.x, -b.y)
            draw(offscreenPainter(context))
            cairo_destroy(context)
            return surface
        }
        func project(_ surface: OpaquePointer, _ op: cairo_operator_t) {
            let (sum, context) = deviceSizedLayer(like: cr)
            defer { cairo_surface_destroy(sum) }
            cairo_set_operator(context, CAIRO_OPERATOR_ADD)
            let pattern = cairo_pattern_create_for_surface(surface)!
            cairo_pattern_set_filter(pattern, CAIRO_FILTER_BILINEAR)
            cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
            let u0 = -p.anchorPoint.x * width
            let v0 = -p.anchorPoint.y * height
            let v1 = v0 + height
            let projectedWidth = abs(cos(t.rotationY)) * width * k
            let strips = min(pixelsWide, max(1, Int(projectedWidth / 2) + 1))
            for i in 0..<strips {
                let ua = u0 + width * Double(i) / Double(strips)
                let ub = u0 + width * Double(i + 1) / Double(strips)
                guard let a = t.project(x: ua, y: 1), let c = t.project(x: ub, y: 1), abs(c.x - a.x) > 1e-9 else {
                    continue
                }
                let ka = a.y
                let kb = c.y
                let mid = (ka + kb) / 2
                cairo_new_path(context)
                cairo_move_to(context, a.x, v0 * ka)
                cairo_line_to(context, c.x, v0 * kb)
                cairo_line_to(context, c.x, v1 * kb)
                cairo_line_to(context, a.x, v1 * ka)
                cairo_close_path(context)
                // User (projected) space → image pixels: x linear across the strip, y / w.
                let du = (ub - ua) / (c.x - a.x)
                let px = Double(pixelsWide) / width
                let py = Double(pixelsHigh) / height
                var m = cairo_matrix_t()
                cairo_matrix_init(&m, du * px, 0, 0, py / mid, (ua - a.x * du - u0) * px, -v0 * py)
                cairo_pattern_set_matrix(pattern, &m)
                cairo_set_source(context, pattern)
                cairo_fill(context)
            }
            cairo_pattern_destroy(pattern)
            cairo_destroy(context)
            composite(sum, op)
        }

        if layer.role == .destination {
            // The app shows in the projected frame; the sublayers paint inside it, above it.
            let region = flat { painter in
                let visible = painter.destinationRegion(layer, p)
                cairo_set_source(painter.cr, visible)
                cairo_paint(painter.cr)
                cairo_pattern_destroy(visible)
            }
            defer { cairo_surface_destroy(region) }
            project(region, CAIRO_OPERATOR_DEST_OUT)
            guard !layer.sublayers.isEmpty else { return }
            let above = flat { painter in
                for sub in layer.sublayers { painter.draw(sub) }
                cairo_identity_matrix(painter.cr)
                cairo_set_operator(painter.cr, CAIRO_OPERATOR_DEST_IN)
                cairo_set_source_surface(painter.cr, region, 0, 0)
                cairo_paint(painter.cr)
            }
            defer { cairo_surface_destroy(above) }
            project(above, CAIRO_OPERATOR_OVER)
        } else {
            let image = flat { painter in painter.drawBody(layer, p) }
            defer { cairo_surface_destroy(image) }
            if p.blurRadius > 0 { Blur.gaussian(image, sigma: p.blurRadius * k) }
            project(image, CAIRO_OPERATOR_OVER)
        }
    }
}
