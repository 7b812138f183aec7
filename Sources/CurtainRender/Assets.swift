import CCairo
import CurtainCore

#if canImport(Glibc)
import Glibc
#endif

/// A decoded image asset, loaded once per scene: an SVG as a librsvg handle (drawn as vectors
/// at every scale), a PNG as a cairo surface.
final class Asset {
    enum Kind {
        case svg(OpaquePointer)
        case png(OpaquePointer)
    }
    let kind: Kind
    /// Intrinsic size in pixels (the SVG's width/height or viewBox, the PNG's dimensions).
    let width: Double
    let height: Double

    init(kind: Kind, width: Double, height: Double) {
        self.kind = kind
        self.width = width
        self.height = height
    }

    deinit {
        switch kind {
        case .svg(let handle): g_object_unref(UnsafeMutableRawPointer(handle))
        case .png(let surface): cairo_surface_destroy(surface)
        }
    }

    /// Reads `relative` inside `directory`, refusing anything that resolves outside it (after
    /// symbolic links), over `Scene.Limits.assetBytes`, or over `Scene.Limits.imageDimension`.
    static func load(_ relative: String, in directory: String) throws(RenderError) -> Asset {
        func fail(_ message: String) -> RenderError { RenderError("asset '\(relative)': \(message)") }
        guard let root = realPath(directory) else {
            throw fail("the scene's directory \(directory) cannot be resolved")
        }
        let joined = directory + "/" + relative
        guard let resolved = realPath(joined) else { throw fail("no such file (looked for \(joined))") }
        guard resolved.hasPrefix(root == "/" ? "/" : root + "/") else {
            throw fail("resolves to \(resolved), outside the scene's directory \(root) (a symbolic link?)")
        }
        var info = stat()
        guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw fail("is not a regular file")
        }
        guard info.st_size <= Scene.Limits.assetBytes else {
            throw fail(
                "is \(info.st_size) bytes, more than the limit of \(Scene.Limits.assetBytes) (\(Scene.Limits.assetBytes / 1024 / 1024) MiB)"
            )
        }
        let bytes = try readFile(resolved, limit: Scene.Limits.assetBytes, fail)
        if relative.lowercased().hasSuffix(".png") { return try png(bytes, fail) }
        return try svg(bytes, fail)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func readFile(_ path: String, limit: Int, _ fail: (String) -> RenderError) throws(RenderError) -> [UInt8] {
        try readBoundedFile(path, limit: limit, fail)
    }

    static func checkDimensions(_ width: Double, _ height: Double, _ fail: (String) -> RenderError) throws(RenderError)
    {
        let limit = Double(Scene.Limits.imageDimension)
        guard width.isFinite, height.isFinite, width > 0, height > 0 else {
            throw fail("has no usable size (\(width) × \(height))")
        }
        guard width <= limit, height <= limit else {
            throw fail(
                "is \(Int(width.rounded(.up))) × \(Int(height.rounded(.up))) pixels, more than the limit of \(Scene.Limits.imageDimension) × \(Scene.Limits.imageDimension)"
            )
        }
    }

    static func png(_ bytes: [UInt8], _ fail: (String) -> RenderError) throws(RenderError) -> Asset {
        // The header says the size: refuse a huge image before anything is decoded.
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            throw fail("is not a PNG file (no PNG signature and IHDR header)")
        }
        func be32(_ i: Int) -> Double {
            Double(
                UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
            )
        }
        try checkDimensions(be32(16), be32(20), fail)
        final class Cursor {
            let bytes: [UInt8]
            var offset = 0
            init(_ b: [UInt8]) { bytes = b }
        }
        let cursor = Cursor(bytes)
        let surface = withExtendedLifetime(cursor) {
            cairo_image_surface_create_from_png_stream(
                { closure, data, length in
                    let cursor = Unmanaged<Cursor>.fromOpaque(closure!).takeUnretainedValue()
                    let n = Int(length)
                    guard cursor.offset + n <= cursor.bytes.count else { return CAIRO_STATUS_READ_ERROR }
                    cursor.bytes.withUnsafeBufferPointer { buffer in
                        data!.update(from: buffer.baseAddress!.advanced(by: cursor.offset), count: n)
                    }
                    cursor.offset += n
                    return CAIRO_STATUS_SUCCESS
                },
                Unmanaged.passUnretained(cursor).toOpaque()
            )!
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw fail("cannot be decoded as PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        return Asset(
            kind: .png(surface),
            width: Double(cairo_image_surface_get_width(surface)),
            height: Double(cairo_image_surface_get_height(surface))
        )
    }

    static func svg(_ bytes: [UInt8], _ fail: (String) -> RenderError) throws(RenderError) -> Asset {
        var error: UnsafeMutablePointer<GError>? = nil
        let handle = bytes.withUnsafeBufferPointer {
            rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error)
        }
        guard let handle else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw fail("is not a valid SVG document: \(message)")
        }
        rsvg_handle_set_dpi(handle, 96)
        var width = 0.0
        var height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) == 0 {
            // Only a viewBox (no width/height): its size is the intrinsic size.
            var hasViewBox: gboolean = 0
            var viewBox = RsvgRectangle()
            rsvg_handle_get_intrinsic_dimensions(handle, nil, nil, nil, nil, &hasViewBox, &viewBox)
            guard hasViewBox != 0 else {
                g_object_unref(UnsafeMutableRawPointer(handle))
                throw fail("has neither width/height in pixels nor a viewBox")
            }
            width = viewBox.width
            height = viewBox.height
        }
        do { try checkDimensions(width, height, fail) } catch {
            g_object_unref(UnsafeMutableRawPointer(handle))
            throw error
        }
        return Asset(kind: .svg(handle), width: width, height: height)
    }
}

/// A whole file, never more than `limit` bytes even if it grows while it is read (scene assets,
/// recorded event streams).
package func readBoundedFile(_ path: String, limit: Int, _ fail: (String) -> RenderError) throws(RenderError) -> [UInt8]
{
    guard let file = fopen(path, "rb") else { throw fail("cannot be opened: \(String(cString: strerror(errno)))") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n == 0 { break }
        bytes += chunk[0..<n]
        // The file may have grown since stat: never read past the limit.
        guard bytes.count <= limit else { throw fail("is more than \(limit) bytes") }
    }
    return bytes
}
