import CCairo
import CurtainCore

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
