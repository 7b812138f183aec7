import CWebP

/// An animated WebP (browsers play it; so do image viewers), written by libwebp's
/// WebPAnimEncoder: each frame shown until the next one's time, the last for `lastDuration`.
/// Lossy with alpha (quality 80): a preview, not a golden. Consecutive identical frames are
/// merged by the encoder into one longer frame (so a file may hold fewer frames than added).
public enum AnimatedWebP {
    /// Most frames in one animation (as for a contact sheet's source: one run's frames).
    public static let maximumFrames = 10_000

    public static func encode(
        frames: [(time: Double, image: Image)],
        lastDuration: Double = 0.5
    ) throws(RenderError) -> [UInt8] {
        guard let first = frames.first else { throw RenderError("an animation needs at least one frame") }
        let encoder = try Encoder(width: first.image.width, height: first.image.height)
        for frame in frames { try encoder.add(time: frame.time, image: frame.image) }
        return try encoder.finish(lastDuration: lastDuration)
    }

    /// Frames added one at a time (a long replay need not keep every frame in memory).
    public final class Encoder {
        let encoder: OpaquePointer
        let width: Int, height: Int
        var config = WebPConfig()
        var start: Double? = nil
        var last = -1
        public private(set) var count = 0

        public init(width: Int, height: Int, loop: Bool = true) throws(RenderError) {
            var options = WebPAnimEncoderOptions()
            guard WebPAnimEncoderOptionsInit(&options) != 0, WebPConfigInit(&config) != 0 else {
                throw RenderError("libwebp: version mismatch")
            }
            options.anim_params.loop_count = loop ? 0 : 1
            guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
                throw RenderError("libwebp: cannot create an animation encoder for \(width)×\(height)")
            }
            self.encoder = encoder
            self.width = width
            self.height = height
            config.quality = 80
            config.method = 2  // fast: a preview
        }

        deinit { WebPAnimEncoderDelete(encoder) }

        var error: String { String(cString: WebPAnimEncoderGetError(encoder)) }

        /// A frame shown from `time` (seconds; timestamps are whole milliseconds from the
        /// first frame, strictly increasing) until the next one.
        public func add(time: Double, image: Image) throws(RenderError) {
            guard count < AnimatedWebP.maximumFrames else {
                throw RenderError("more than an animation's limit of \(AnimatedWebP.maximumFrames) frames")
            }
            guard image.width == width, image.height == height else {
                throw RenderError("an animation's frames must all be \(width)×\(height)")
            }
            let start = self.start ?? time
            self.start = start
            let ms = max(last + 1, Int(((time - start) * 1000).rounded()))
            last = ms
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw RenderError("libwebp: version mismatch") }
            defer { WebPPictureFree(&picture) }
            picture.use_argb = 1
            picture.width = Int32(width)
            picture.height = Int32(height)
            var bgra = image.straightBGRA()
            guard WebPPictureImportBGRA(&picture, &bgra, Int32(width * 4)) != 0,
                WebPAnimEncoderAdd(encoder, &picture, Int32(ms), &config) != 0
            else {
                throw RenderError("libwebp: cannot add a frame: \(error)")
            }
            count += 1
        }

        /// The file's bytes; the last frame shows for `lastDuration` seconds.
        public func finish(lastDuration: Double = 0.5) throws(RenderError) -> [UInt8] {
            guard count > 0 else { throw RenderError("an animation needs at least one frame") }
            guard WebPAnimEncoderAdd(encoder, nil, Int32(last + max(1, Int((lastDuration * 1000).rounded()))), nil) != 0
            else {
                throw RenderError("libwebp: cannot end the animation: \(error)")
            }
            var data = WebPData()
            WebPDataInit(&data)
            defer { WebPDataClear(&data) }
            guard WebPAnimEncoderAssemble(encoder, &data) != 0, let bytes = data.bytes else {
                throw RenderError("libwebp: cannot assemble the animation: \(error)")
            }
            return Array(UnsafeBufferPointer(start: bytes, count: data.size))
        }
    }

    /// The frame count and canvas size of an animated WebP, read from its RIFF chunks (VP8X,
    /// ANIM, one ANMF per frame); nil when it is not one.
    public static func inspect(_ bytes: [UInt8]) -> (frames: Int, width: Int, height: Int)? {
        func le32(_ i: Int) -> Int {
            Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
        }
        func le24(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 }
        guard bytes.count >= 30, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8),
            le32(4) + 8 == bytes.count, bytes[12..<16].elementsEqual("VP8X".utf8), bytes[20] & 0x02 != 0
        else { return nil }
        let width = le24(24) + 1
        let height = le24(27) + 1
        var offset = 12
        var frames = 0
        var animation = false
        while offset + 8 <= bytes.count {
            let fourCC = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = le32(offset + 4)
            if fourCC == "ANIM" { animation = true }
            if fourCC == "ANMF" { frames += 1 }
            offset += 8 + size + (size & 1)
        }
        return animation && offset == bytes.count ? (frames, width, height) : nil
    }
}
