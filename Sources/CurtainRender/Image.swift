import CCairo
import CurtainCore

#if canImport(Glibc)
import Glibc
#endif

/// A rendered frame: a cairo ARGB32 image surface (premultiplied, native-endian 0xAARRGGBB).
public final class Image {
    let surface: OpaquePointer
    public let width: Int
    public let height: Int

    /// A transparent image. Sizes are checked by the callers (`SceneRenderer.Limits`).
    init(width: Int, height: Int) {
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        self.width = width
        self.height = height
    }

    init(adopting surface: OpaquePointer) {
        self.surface = surface
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
    }

    /// A frame buffer over pixels the caller owns (a Wayland renderer's wl_shm memory), so
    /// frames are drawn straight into it: `width` × `height` premultiplied native-endian
    /// ARGB32 pixels in rows of `stride` bytes (a multiple of 4, at least width·4). The memory
    /// must outlive the image. Nil when cairo refuses the layout.
    public convenience init?(wrapping pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int) {
        guard (1...SceneRenderer.Limits.outputDimension).contains(width),
            (1...SceneRenderer.Limits.outputDimension).contains(height), stride >= width * 4, stride % 4 == 0,
            let surface = cairo_image_surface_create_for_data(
                pixels.assumingMemoryBound(to: UInt8.self),
                CAIRO_FORMAT_ARGB32,
                Int32(width),
                Int32(height),
                Int32(stride)
            ), cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
        else { return nil }
        self.init(adopting: surface)
    }

    /// Makes every pixel transparent.
    public func clear() {
        let cr = cairo_create(surface)!
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        cairo_paint(cr)
        cairo_destroy(cr)
    }

    deinit { cairo_surface_destroy(surface) }

    /// The premultiplied pixel at (x, y) as 0xAARRGGBB.
    public func argb(_ x: Int, _ y: Int) -> UInt32 {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        return data.advanced(by: y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
    }

    /// The pixel at (x, y) as straight (not premultiplied) 8-bit RGBA.
    public func rgba(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let p = argb(x, y)
        let a = UInt8(p >> 24)
        func straight(_ c: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (c * 255 + UInt32(a) / 2) / UInt32(a))) }
        return (straight((p >> 16) & 0xFF), straight((p >> 8) & 0xFF), straight(p & 0xFF), a)
    }

    /// Every pixel, row by row (premultiplied 0xAARRGGBB).
    public var pixels: [UInt32] {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = UnsafeRawPointer(cairo_image_surface_get_data(surface)!)
        var result = [UInt32](repeating: 0, count: width * height)
        result.withUnsafeMutableBytes { out in
            for y in 0..<height {
                out.baseAddress!.advanced(by: y * width * 4).copyMemory(
                    from: data.advanced(by: y * stride),
                    byteCount: width * 4
                )
            }
        }
        return result
    }

    /// The pixels in place: rows of `stride` bytes of premultiplied native-endian 0xAARRGGBB
    /// (Wayland's ARGB8888), for a renderer that copies a frame's damage to a display buffer.
    public func withUnsafePixels<R>(_ body: (_ data: UnsafeRawPointer, _ stride: Int) throws -> R) rethrows -> R {
        cairo_surface_flush(surface)
        return try body(
            UnsafeRawPointer(cairo_image_surface_get_data(surface)!),
            Int(cairo_image_surface_get_stride(surface))
        )
    }

    /// A copy of the pixels (a kept frame buffer changes with the next frame).
    public func copy() throws(RenderError) -> Image {
        let image = Image(width: width, height: height)
        let cr = cairo_create(image.surface)!
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        cairo_destroy(cr)
        return image
    }

    /// Straight (not premultiplied) B, G, R, A bytes, row by row, as libwebp imports them.
    func straightBGRA() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        var i = 0
        for p in pixels {
            let a = p >> 24
            func straight(_ c: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (c * 255 + a / 2) / a)) }
            out[i] = straight(p & 0xFF)
            out[i + 1] = straight((p >> 8) & 0xFF)
            out[i + 2] = straight((p >> 16) & 0xFF)
            out[i + 3] = UInt8(a)
            i += 4
        }
        return out
    }

    /// A PNG file (a stand-in app screenshot): refused beyond `Scene.Limits.assetBytes` or
    /// `Scene.Limits.imageDimension` (from its header, before decoding), like a scene's images.
    public static func loadPNG(_ path: String) throws(RenderError) -> Image {
        func fail(_ message: String) -> RenderError { RenderError("\(path): \(message)") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw fail("cannot be read: \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw fail("is not a regular file") }
        guard info.st_size <= Scene.Limits.assetBytes else {
            throw fail(
                "is \(info.st_size) bytes, more than the limit of \(Scene.Limits.assetBytes) (\(Scene.Limits.assetBytes / 1024 / 1024) MiB)"
            )
        }
        let bytes = try Asset.readFile(path, limit: Scene.Limits.assetBytes, fail)
        let asset = try Asset.png(bytes, fail)
        guard case .png(let surface) = asset.kind else { throw fail("is not a PNG file") }
        // Onto an ARGB32 image of our own (the asset owns its surface).
        let image = Image(width: Int(asset.width), height: Int(asset.height))
        let cr = cairo_create(image.surface)!
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_paint(cr)
        cairo_destroy(cr)
        return image
    }

    public func writePNG(to path: String) throws(RenderError) {
        cairo_surface_flush(surface)
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderError("cannot write \(path): \(String(cString: cairo_status_to_string(status)))")
        }
    }

    /// Reads a PNG written by `writePNG` (goldens); nil when unreadable.
    public static func readPNG(_ path: String) -> Image? {
        let surface = cairo_image_surface_create_from_png(path)!
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS,
            cairo_image_surface_get_format(surface) == CAIRO_FORMAT_ARGB32
                || cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24
        else {
            cairo_surface_destroy(surface)
            return nil
        }
        if cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24 {
            // Opaque PNGs load as RGB24 (alpha byte undefined): copy onto ARGB32.
            let image = Image(
                width: Int(cairo_image_surface_get_width(surface)),
                height: Int(cairo_image_surface_get_height(surface))
            )
            let cr = cairo_create(image.surface)!
            cairo_set_source_surface(cr, surface, 0, 0)
            cairo_paint(cr)
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
            return image
        }
        return Image(adopting: surface)
    }
}

/// Why a scene could not be loaded or rendered.
public struct RenderError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
