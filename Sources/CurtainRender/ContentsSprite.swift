import CCairo
import CurtainCore

/// A layer's contents — its text, or its image (SVG by librsvg, PNG) — rasterised exactly as a
/// frame draws them (`Contents.paintText`, `Contents.paintImage`: the same code, the same
/// device matrix), on the device's pixel grid: curtain-web's page draws the sprite 1:1 at
/// (`x`, `y`) instead of shaping text or rasterising images itself, so that its pixels are
/// `curtainctl render`'s (a browser's text engine and SVG rasteriser place and antialias
/// differently; docs/web.md).
public struct ContentsSprite: Sendable {
    /// The sprite's top-left device pixel and size.
    public let x: Int, y: Int, width: Int, height: Int
    /// PNG (8-bit RGBA, not premultiplied; cairo's writer).
    public let png: [UInt8]

    public typealias Matrix = (Double, Double, Double, Double, Double, Double)

    /// The text of `text` (variant `variant`) laid out in `bounds` (layer coordinates) under
    /// the device matrix `matrix` (a, b, c, d, tx, ty, as cairo's), covering its ink and logical
    /// extents. Nil when none of it falls within `clip`; an error beyond `maximumPixels`.
    public static func text(
        _ text: SceneLayer.Text,
        bounds: SceneLayer.Rect,
        variant: Int,
        matrix: Matrix,
        clip: PixelRect,
        maximumPixels: Int
    ) throws(RenderError) -> ContentsSprite? {
        // The extents, measured as the painter measures them (an identity context).
        let scratchSurface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)!
        let scratch = cairo_create(scratchSurface)!
        let layout = Contents.layout(scratch, text, bounds, variant)
        var ink = PangoRectangle()
        var logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        g_object_unref(UnsafeMutableRawPointer(layout))
        cairo_destroy(scratch)
        cairo_surface_destroy(scratchSurface)
        let box = Box(
            minX: Double(min(ink.x, logical.x)) + bounds.x,
            minY: Double(min(ink.y, logical.y)) + bounds.y,
            maxX: Double(max(ink.x + ink.width, logical.x + logical.width)) + bounds.x,
            maxY: Double(max(ink.y + ink.height, logical.y + logical.height)) + bounds.y
        )
        return try render(box, matrix: matrix, clip: clip, maximumPixels: maximumPixels, what: "the text") { cr in
            Contents.paintText(cr, text, bounds, variant)
        }
    }

    /// Image asset `name` (read inside `directory` with the scene's asset limits, as a frame
    /// reads it) placed in `bounds` as `gravity` says, under `matrix`; covering its placement
    /// (clipped to the bounds for resizeAspectFill).
    public static func image(
        _ name: String,
        in directory: String,
        gravity: SceneLayer.Gravity,
        bounds: SceneLayer.Rect,
        matrix: Matrix,
        clip: PixelRect,
        maximumPixels: Int
    ) throws(RenderError) -> ContentsSprite? {
        let asset = try Asset.load(name, in: directory)
        var placed = Box(Contents.placement(asset, gravity, bounds))
        if gravity == .resizeAspectFill {
            guard let clipped = placed.intersection(Box(bounds)) else { return nil }
            placed = clipped
        }
        return try render(placed, matrix: matrix, clip: clip, maximumPixels: maximumPixels, what: "the image") { cr in
            Contents(assets: [:], textVariant: 0).paintImage(cr, asset, gravity, bounds)
        }
    }

    /// `paint` (in layer coordinates) rasterised under `matrix` into the device pixels of
    /// `box` plus 2 (as the painter's layer cache sizes its surfaces), within `clip`.
    static func render(
        _ box: Box,
        matrix: Matrix,
        clip: PixelRect,
        maximumPixels: Int,
        what: String,
        paint: (OpaquePointer) -> Void
    ) throws(RenderError) -> ContentsSprite? {
        let m = Affine(a: matrix.0, b: matrix.1, c: matrix.2, d: matrix.3, tx: matrix.4, ty: matrix.5)
        guard [m.a, m.b, m.c, m.d, m.tx, m.ty].allSatisfy(\.isFinite) else {
            throw RenderError("the matrix is not finite")
        }
        guard let rect = m.map(box).pixels(padding: 2).intersection(clip) else { return nil }
        guard rect.area <= maximumPixels else {
            throw RenderError("\(what) covers \(rect.width)×\(rect.height) pixels, more than \(maximumPixels)")
        }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(rect.width), Int32(rect.height))!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        // The frame's matrix moved by whole pixels: everything lands where it lands on the frame.
        var shifted = Affine(a: 1, b: 0, c: 0, d: 1, tx: -Double(rect.x), ty: -Double(rect.y)).concat(m).cairo
        cairo_set_matrix(cr, &shifted)
        paint(cr)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(
            surface,
            { closure, data, length in
                let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            },
            Unmanaged.passUnretained(sink).toOpaque()
        )
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderError("cannot encode \(what): \(String(cString: cairo_status_to_string(status)))")
        }
        return ContentsSprite(x: rect.x, y: rect.y, width: rect.width, height: rect.height, png: sink.bytes)
    }
}
