import CCairo

/// A grid of frames with their times written under each: one picture of a whole transition.
/// Transparent pixels show over a grey checkerboard, as image editors show them.
public enum ContactSheet {
    /// Most frames on one sheet.
    public static let maximumFrames = 120

    /// `captions` (by frame, may be shorter) are written under the times: a replay's state
    /// changes, e.g. "→ revealing".
    public static func make(
        title: String,
        frames: [(time: Double, image: Image)],
        captions: [String] = [],
        columns: Int = 5,
        thumbnailWidth: Int = 180
    ) throws(RenderError) -> Image {
        guard !frames.isEmpty else { throw RenderError("a contact sheet needs at least one frame") }
        guard frames.count <= maximumFrames else {
            throw RenderError("\(frames.count) frames is more than a contact sheet's limit of \(maximumFrames)")
        }
        let columns = max(1, min(columns, frames.count))
        let rows = (frames.count + columns - 1) / columns
        let first = frames[0].image
        let scale = Double(thumbnailWidth) / Double(first.width)
        let tw = Double(thumbnailWidth)
        let th = (Double(first.height) * scale).rounded()
        let gap = 12.0
        let label = captions.contains(where: { !$0.isEmpty }) ? 40.0 : 22.0
        let header = 34.0
        let width = Int(gap + Double(columns) * (tw + gap))
        let height = Int(header + Double(rows) * (th + label + gap) + gap / 2)
        let sheet = Image(width: width, height: height)
        let cr = cairo_create(sheet.surface)!
        defer { cairo_destroy(cr) }
        cairo_set_source_rgb(cr, 0.13, 0.13, 0.15)
        cairo_paint(cr)
        text(cr, title, x: gap, y: 8, size: 15, bold: true)
        for (i, frame) in frames.enumerated() {
            let x = gap + Double(i % columns) * (tw + gap)
            let y = header + Double(i / columns) * (th + label + gap)
            // Checkerboard under the frame: 8 px squares.
            cairo_save(cr)
            cairo_rectangle(cr, x, y, tw, th)
            cairo_clip(cr)
            cairo_set_source_rgb(cr, 0.8, 0.8, 0.8)
            cairo_paint(cr)
            cairo_set_source_rgb(cr, 0.6, 0.6, 0.6)
            var cy = 0.0
            while cy < th {
                var cx = (Int(cy / 8) % 2 == 0) ? 0.0 : 8.0
                while cx < tw {
                    cairo_rectangle(cr, x + cx, y + cy, 8, 8)
                    cx += 16
                }
                cy += 8
            }
            cairo_fill(cr)
            cairo_translate(cr, x, y)
            cairo_scale(cr, tw / Double(frame.image.width), th / Double(frame.image.height))
            cairo_set_source_surface(cr, frame.image.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_paint(cr)
            cairo_restore(cr)
            text(cr, "t = \(format(frame.time)) s", x: x, y: y + th + 3, size: 12, bold: false)
            if i < captions.count, !captions[i].isEmpty {
                text(cr, captions[i], x: x, y: y + th + 20, size: 12, bold: true, width: tw, color: (1.0, 0.8, 0.3))
            }
        }
        return sheet
    }

    static func format(_ t: Double) -> String {
        let ms = Int((t * 1000).rounded())
        let fraction = String(ms % 1000)
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    static func text(
        _ cr: OpaquePointer,
        _ string: String,
        x: Double,
        y: Double,
        size: Double,
        bold: Bool,
        width: Double? = nil,
        color: (Double, Double, Double) = (0.92, 0.92, 0.92)
    ) {
        let layout = pango_cairo_create_layout(cr)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let font = pango_font_description_from_string(bold ? "DejaVu Sans Bold" : "DejaVu Sans")!
        pango_font_description_set_absolute_size(font, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        if let width {
            pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        }
        pango_layout_set_text(layout, string, Int32(string.utf8.count))
        cairo_set_source_rgb(cr, color.0, color.1, color.2)
        cairo_move_to(cr, x, y)
        pango_cairo_show_layout(cr, layout)
    }
}
