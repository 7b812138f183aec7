import CCairo
import CurtainCore

/// A text layer's text rasterised exactly as a frame draws it (`Contents.paintText`: pango,
/// the same font options, the same device matrix), on the device's pixel grid: curtain-web's
/// page draws it at (`x`, `y`) instead of shaping text itself, so that its text has
/// `curtainctl render`'s pixels (a browser's text engine places and rasterises glyphs
/// differently; docs/web.md).
public struct TextSprite: Sendable {
    /// The sprite's top-left device pixel and size.
    public let x: Int, y: Int, width: Int, height: Int
    /// PNG (8-bit RGBA, not premultiplied; cairo's writer).
    public let png: [UInt8]

    /// The text of `text` (variant `variant`) laid out in `bounds` (layer coordinates) under
    /// the device matrix `matrix` (a, b, c, d, tx, ty, as cairo's), covering its ink and logical
    /// extents plus 2 pixels (as the painter's layer cache does), within `clip` (device pixels).
    /// Nil when none of it falls within `clip`; an error beyond `maximumPixels`.
    public static func render(_ text: SceneLayer.Text, bounds: SceneLayer.Rect, variant: Int,
                              matrix: (Double, Double, Double, Double, Double, Double), clip: PixelRect,
                              maximumPixels: Int) throws(RenderError) -> TextSprite? {
        let m = Affine(a: matrix.0, b: matrix.1, c: matrix.2, d: matrix.3, tx: matrix.4, ty: matrix.5)
        guard [m.a, m.b, m.c, m.d, m.tx, m.ty].allSatisfy(\.isFinite) else { throw RenderError("the matrix is not finite") }
        // The extents, measured as the painter measures them (an identity context).
        let scratchSurface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)!
        let scratch = cairo_create(scratchSurface)!
        let layout = Contents.layout(scratch, text, bounds, variant)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        g_object_unref(UnsafeMutableRawPointer(layout))
        cairo_destroy(scratch)
        cairo_surface_destroy(scratchSurface)
        let box = Box(minX: Double(min(ink.x, logical.x)) + bounds.x, minY: Double(min(ink.y, logical.y)) + bounds.y,
                      maxX: Double(max(ink.x + ink.width, logical.x + logical.width)) + bounds.x,
                      maxY: Double(max(ink.y + ink.height, logical.y + logical.height)) + bounds.y)
        guard let rect = m.map(box).pixels(padding: 2).intersection(clip) else { return nil }
        guard rect.area <= maximumPixels else {
            throw RenderError("the text covers \(rect.width)×\(rect.height) pixels, more than \(maximumPixels)")
        }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(rect.width), Int32(rect.height))!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        // The frame's matrix moved by whole pixels: glyphs land where they land on the frame.
        var shifted = Affine(a: 1, b: 0, c: 0, d: 1, tx: -Double(rect.x), ty: -Double(rect.y)).concat(m).cairo
        cairo_set_matrix(cr, &shifted)
        Contents.paintText(cr, text, bounds, variant)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(surface, { closure, data, length in
            let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else { throw RenderError("cannot encode the text: \(String(cString: cairo_status_to_string(status)))") }
        return TextSprite(x: rect.x, y: rect.y, width: rect.width, height: rect.height, png: sink.bytes)
    }
}
