import CCairo
import CPixelLoops
import CurtainCore

#if canImport(Glibc)
import Glibc
#endif

// The blur of seed 003's presenter: the box and 3-tap passes, the reductions they run on, and
// a blurred layer's kept images (drawn by `Painter.drawBlurred`, Effects.swift).

/// A Gaussian blur of a cairo ARGB32 image, in place, as three box blurs in each direction
/// (the standard approximation: three boxes whose variances add up to σ², within a few per
/// cent of the Gaussian). Written here because no library on the machine fits: cairo has no
/// blur; pixman's PIXMAN_FILTER_SEPARABLE_CONVOLUTION stores its kernel separably but
/// evaluates the full width × height product per pixel (O(σ²) per pixel, ~20 000 taps at
/// σ = 20) and is reachable only through pixman directly; a running-sum box costs O(1) per
/// pixel whatever σ. Premultiplied channels blur correctly as they are; edges clamp (the
/// image's border pixels extend outwards), so a full-screen layer does not darken at the
/// screen's edges.
enum Blur {
    /// Box widths (odd) whose three variances add up to σ² (Kovesi's / W. Jarosz's recipe).
    static func boxes(sigma: Double, count: Int = 3) -> [Int] {
        guard sigma > 0 else { return [] }
        let n = Double(count)
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        lower = max(lower, 1)
        let upper = lower + 2
        let l = Double(lower)
        let m = Int(((12 * sigma * sigma - n * l * l - 4 * n * l - 3 * n) / (-4 * l - 4)).rounded())
        return (0..<count).map { $0 < m ? lower : upper }
    }

    /// What a blur of σ applies: the pixels depend on this alone (3-tap passes' count and
    /// side weight in 1/256ths, or the box widths), so frames whose σ differ but give the same
    /// kernel share one blurred image (BlurredLayer). Empty: nothing to blur.
    static func kernel(sigma: Double) -> [Int] {
        if sigma > 0, let passes = tapPasses(variance: sigma * sigma) {
            let side = Int((sigma * sigma / 2 / Double(passes) * 256).rounded())
            return side > 0 ? [-passes, side] : []
        }
        return boxes(sigma: sigma).filter { $0 > 1 }
    }

    /// The blur, its rows and columns split into `bands` run at once (the same pixels for any count).
    static func gaussian(_ surface: OpaquePointer, sigma: Double, bands: Int = Bands.count) {
        let kernel = kernel(sigma: sigma)
        if kernel.count == 2, kernel[0] < 0 {
            threeTap(surface, side: UInt32(kernel[1]), passes: -kernel[0], bands: bands)
            return
        }
        let widths = kernel
        guard !widths.isEmpty else { return }
        withPixels(surface) { pixels, w, h, stride in
            let copy = UnsafeMutablePointer<UInt32>.allocate(capacity: w * h)
            let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: 4 * w)
            defer {
                copy.deallocate()
                sums.deallocate()
            }
            for width in widths {
                let r = width / 2
                Bands.run(h, bands: bands) { rows in
                    let scratch = UnsafeMutablePointer<UInt32>.allocate(capacity: w)
                    defer { scratch.deallocate() }
                    for y in rows { box(pixels + y * stride, step: 1, count: w, radius: r, scratch) }
                }
                boxColumns(pixels, stride: stride, width: w, height: h, radius: r, copy, sums, bands: bands)
            }
        }
    }

    /// A surface's 32-bit pixels between cairo's flush and mark-dirty (nothing for an empty
    /// surface); `stride` in pixels.
    static func withPixels(
        _ surface: OpaquePointer,
        _ body: (_ pixels: UnsafeMutablePointer<UInt32>, _ width: Int, _ height: Int, _ stride: Int) -> Void
    ) {
        cairo_surface_flush(surface)
        let w = Int(cairo_image_surface_get_width(surface))
        let h = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface)) / 4
        guard w > 0, h > 0, let raw = cairo_image_surface_get_data(surface) else { return }
        let pixels = UnsafeMutableRawPointer(raw).bindMemory(to: UInt32.self, capacity: stride * h)
        body(pixels, w, h, stride)
        cairo_surface_mark_dirty(surface)
    }

    /// Largest variance (pixels²) blurred by 3-tap passes instead of the three boxes: up to
    /// here the boxes would be 1 or 3 pixels wide (σ quantised coarsely), and a 3-tap pass
    /// costs a third of a box pass (no running sums, two lanes per multiplication).
    static let tapVariance = 2.0
    /// Variance one 3-tap pass adds at most: [¼ ½ ¼] (binomial, bell-shaped).
    static let tapPassVariance = 0.5

    /// How many 3-tap passes blur by `variance` (nil: the boxes do).
    static func tapPasses(variance: Double) -> Int? {
        guard variance.isFinite, variance > 0, variance <= tapVariance else { return nil }
        return Int((variance / tapPassVariance).rounded(.up))
    }

    /// `passes` separable passes of the kernel [w, 1 − 2w, w] (w = `side` / 256: variance / 2 /
    /// passes for a variance) in each direction: variances add up to `variance`. Edges clamp, like the boxes.
    /// Two premultiplied channels per 32-bit multiplication (0x00RR00BB, 0x00AA00GG): each
    /// lane stays below 2^16 (255 × 256 + 128).
    static func threeTap(_ surface: OpaquePointer, side: UInt32, passes: Int, bands: Int = Bands.count) {
        guard side > 0, side < 128 else { return }
        withPixels(surface) { pixels, w, h, stride in
            for _ in 0..<passes {
                // Rows: from a copy of the row, so that each pixel's three inputs are plain loads.
                Bands.run(h, bands: bands) { rows in
                    let copy = UnsafeMutablePointer<UInt32>.allocate(capacity: w)
                    defer { copy.deallocate() }
                    for y in rows {
                        let line = pixels + y * stride
                        copy.update(from: line, count: w)
                        // The edges clamp: the first and last pixels are their own outer neighbours.
                        curtain_mix3(line, copy, copy, copy + min(1, w - 1), 1, side)
                        if w > 2 { curtain_mix3(line + 1, copy, copy + 1, copy + 2, w - 2, side) }
                        if w > 1 { curtain_mix3(line + w - 1, copy + w - 2, copy + w - 1, copy + w - 1, 1, side) }
                    }
                }
                // Columns, row after row (memory order), each band a range of columns: the
                // previous row's original pixels kept.
                Bands.run(w, bands: bands) { columns in
                    let n = columns.count
                    let kept = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * n)
                    defer { kept.deallocate() }
                    var above = kept
                    var current = kept + n
                    let first = pixels + columns.lowerBound
                    above.update(from: first, count: n)
                    for y in 0..<h {
                        let line = first + y * stride
                        current.update(from: line, count: n)
                        let below = y + 1 < h ? first + (y + 1) * stride : current
                        curtain_mix3(line, above, current, below, n, side)
                        swap(&above, &current)
                    }
                }
            }
        }
    }

    /// `(s + n / 2) / n` by a multiplication (exact for s < 256·n, n < 2^16: the error of the
    /// rounded-up reciprocal stays below one 2^40th of a step); division was most of a pass.
    struct Divider {
        let half: UInt64, reciprocal: UInt64
        init(_ n: UInt32) {
            half = UInt64(n / 2)
            reciprocal = ((1 << 40) + UInt64(n) - 1) / UInt64(n)
        }
        @inline(__always) func callAsFunction(_ s: UInt32) -> UInt32 {
            UInt32(truncatingIfNeeded: ((UInt64(s) + half) &* reciprocal) >> 40)
        }
    }

    /// The vertical box pass for every column at once, row after row (the same sums as `box`
    /// down each column, but reading memory in order: a column walk misses the cache at every
    /// pixel), each of `bands` a range of columns. `copy` holds width × height pixels, `sums` 4 × width.
    static func boxColumns(
        _ pixels: UnsafeMutablePointer<UInt32>,
        stride: Int,
        width w: Int,
        height h: Int,
        radius r: Int,
        _ copy: UnsafeMutablePointer<UInt32>,
        _ sums: UnsafeMutablePointer<UInt32>,
        bands: Int = 1
    ) {
        Bands.run(h, bands: bands) { rows in
            for y in rows { (copy + y * w).update(from: pixels + y * stride, count: w) }
        }
        let last = h - 1
        let divide = Divider(UInt32(2 * r + 1))
        // Each band a range of columns: its own sums, the copy read by all.
        Bands.run(w, bands: bands) { columns in
            (sums + 4 * columns.lowerBound).update(repeating: 0, count: 4 * columns.count)
            for i in -r...r {
                let row = copy + min(max(i, 0), last) * w
                for x in columns {
                    let p = row[x]
                    sums[4 * x] &+= p & 0xFF
                    sums[4 * x + 1] &+= (p >> 8) & 0xFF
                    sums[4 * x + 2] &+= (p >> 16) & 0xFF
                    sums[4 * x + 3] &+= p >> 24
                }
            }
            for y in 0..<h {
                let out = pixels + y * stride
                let add = copy + min(y + r + 1, last) * w
                let sub = copy + max(y - r, 0) * w
                for x in columns {
                    let s = sums + 4 * x
                    out[x] = divide(s[3]) << 24 | divide(s[2]) << 16 | divide(s[1]) << 8 | divide(s[0])
                    let a = add[x]
                    let b = sub[x]
                    s[0] = s[0] &+ (a & 0xFF) &- (b & 0xFF)
                    s[1] = s[1] &+ ((a >> 8) & 0xFF) &- ((b >> 8) & 0xFF)
                    s[2] = s[2] &+ ((a >> 16) & 0xFF) &- ((b >> 16) & 0xFF)
                    s[3] = s[3] &+ (a >> 24) &- (b >> 24)
                }
            }
        }
    }

    /// One box pass along a line of `count` pixels `step` apart: each becomes the mean of the
    /// 2r + 1 around it (indices clamped to the line), rounded.
    static func box(
        _ line: UnsafeMutablePointer<UInt32>,
        step: Int,
        count: Int,
        radius r: Int,
        _ scratch: UnsafeMutablePointer<UInt32>
    ) {
        for i in 0..<count { scratch[i] = line[i * step] }
        let last = count - 1
        let divide = Divider(UInt32(2 * r + 1))
        var s0: UInt32 = 0
        var s1: UInt32 = 0
        var s2: UInt32 = 0
        var s3: UInt32 = 0
        @inline(__always) func add(_ p: UInt32) {
            s0 &+= p & 0xFF
            s1 &+= (p >> 8) & 0xFF
            s2 &+= (p >> 16) & 0xFF
            s3 &+= p >> 24
        }
        @inline(__always) func sub(_ p: UInt32) {
            s0 &-= p & 0xFF
            s1 &-= (p >> 8) & 0xFF
            s2 &-= (p >> 16) & 0xFF
            s3 &-= p >> 24
        }
        for i in -r...r { add(scratch[min(max(i, 0), last)]) }
        for i in 0..<count {
            line[i * step] = divide(s3) << 24 | divide(s2) << 16 | divide(s1) << 8 | divide(s0)
            add(scratch[min(i + r + 1, last)])
            sub(scratch[max(i - r, 0)])
        }
    }
}

extension Blur {
    /// Below this σ (device pixels) a layer is drawn sharp: the three boxes would be one pixel wide.
    static let smallestSigma = 0.5
    /// Reductions of a blurred layer's pixels, each half the previous (1 is the image itself).
    static let factors = [1, 2, 4, 8]
    /// The smallest σ, in device pixels, blurred from the ¼ image: just above its own
    /// softening (`inherentSigma(4)`, 1.98). What is left to blur there is small, and 3-tap
    /// passes (`threeTap`) blur small variances exactly, where boxes 1 or 3 pixels wide could not.
    static let quarterFrom = 2.0
    /// The smallest σ blurred from the ⅛ image: where the ¼ image's 3-tap passes end
    /// (`tapVariance` in its pixels at √(16 · 2 + 1.98²) = 5.993; rounded down). Above it the ¼ image would need
    /// the boxes, 3–4 ms a frame at 1080p; the ⅛ image has a quarter of its pixels, and from
    /// here on the ⅛ grid's aliasing is no larger than the ¼ grid's at `quarterFrom`
    /// (σ ≥ ¾ of the factor).
    static let eighthFrom = 5.99

    /// The softening of a reduction by `factor` and its bilinear enlargement, as a standard
    /// deviation in device pixels: the reduction averages factor × factor pixels (variance
    /// (f² − 1) / 12), the enlargement's tent spans ±factor (variance f² / 6).
    static func inherentSigma(_ factor: Int) -> Double {
        let f = Double(factor)
        return factor == 1 ? 0 : ((f * f - 1) / 12 + f * f / 6).squareRoot()
    }

    /// Which reduction a blur of `sigma` device pixels is drawn from (an index into
    /// `factors`), and the σ still to apply there, in that image's pixels: variances add, so
    /// what is left is √(σ² − inherent²) / factor (none when the reduction alone softens as much).
    static func plan(sigma: Double) -> (level: Int, sigma: Double) {
        guard sigma >= smallestSigma, sigma.isFinite else { return (0, 0) }
        let level = sigma >= eighthFrom ? 3 : sigma >= quarterFrom ? 2 : 1
        let inherent = inherentSigma(factors[level])
        return (level, max(sigma * sigma - inherent * inherent, 0).squareRoot() / Double(factors[level]))
    }

    /// Halves an ARGB32 image (rounding up): bilinear sampling exactly between four pixels is
    /// their average, the 2×2 box reduction, done by pixman's bilinear fast path.
    static func halve(_ surface: OpaquePointer) -> OpaquePointer {
        let w = Int(cairo_image_surface_get_width(surface))
        let h = Int(cairo_image_surface_get_height(surface))
        let half = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32((w + 1) / 2), Int32((h + 1) / 2))!
        let cr = cairo_create(half)!
        cairo_scale(cr, 0.5, 0.5)
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        cairo_destroy(cr)
        return half
    }
}

/// A blurred layer's pixels at opacity 1, unblurred, on the device, and their ½ and ¼
/// reductions (see `Painter.drawBlurred`), with the last frame's blurred image. Made when the
/// layer's content or placement changes (its presentation but for opacity and blur, its
/// sublayers', its mask's, the retained screen, the device matrix), not when only its opacity
/// or blur radius does.
final class BlurredLayer {
    struct Key: Equatable {
        var presentations: [LayerPresentation]
        var matrix: Affine
        /// The retained previous screen shown (the layer keeps it alive: the identity stays unique).
        var screen: ObjectIdentifier?
        var textVariant: Int
        var width: Int, height: Int
    }

    let key: Key
    /// Reductions by `Blur.factors`, made on first use (index 0 is the device-sized image).
    private var levels: [OpaquePointer?]
    private let retained: Image?
    /// The last frame's blurred image: its kernel (`Blur.kernel`), the reduction's factor and surface.
    private var last: (kernel: [Int], factor: Int, surface: OpaquePointer)?
    /// Blurred images made so far.
    private var blurs = 0
    /// The last faded image (`faded`) and what it was made from.
    private struct Fade {
        /// Of which image, made after how many blurs, at which opacity, over which colour.
        var source: OpaquePointer, blurs: Int, opacity: Double, over: Color?
        var surface: OpaquePointer
        /// Over a colour: an opaque (RGB24) view of the same pixels, which is what is drawn.
        var view: OpaquePointer?
        var drawn: OpaquePointer { view ?? surface }
        func destroyView() { if let view { cairo_surface_destroy(view) } }
    }
    private var fade: Fade?
    /// Whether each reduction is opaque everywhere (`isOpaque`), once known.
    private var opaqueLevels: [Int: Bool] = [:]

    /// Draws the layer with `draw` into a device-sized transparent image.
    init(key: Key, retaining screen: Image?, draw: (OpaquePointer) -> Void) {
        self.key = key
        retained = screen
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(key.width), Int32(key.height))!
        let context = cairo_create(surface)!
        draw(context)
        cairo_destroy(context)
        cairo_surface_flush(surface)
        levels = [surface] + Blur.factors.dropFirst().map { _ in nil }
    }

    deinit {
        for case let level? in levels { cairo_surface_destroy(level) }
        if let last { cairo_surface_destroy(last.surface) }
        if let fade {
            fade.destroyView()
            cairo_surface_destroy(fade.surface)
        }
    }

    /// Blurred images made so far (tests).
    var blurredImages: Int { blurs }

    /// Whether the last faded image was flattened onto an opaque colour (tests).
    var flattened: Bool { fade?.view != nil }

    /// Whether the reduction by `factor` (and so every blur of it: averages of opaque pixels,
    /// edges clamped) is opaque in every pixel; looked at once per reduction.
    func isOpaque(factor: Int) -> Bool {
        guard let index = Blur.factors.firstIndex(of: factor) else { return false }
        if let known = opaqueLevels[index] { return known }
        let surface = level(index)
        cairo_surface_flush(surface)
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface)) / 4
        let pixels = UnsafeRawPointer(cairo_image_surface_get_data(surface)!).bindMemory(
            to: UInt32.self,
            capacity: stride * height
        )
        var opaque = true
        rows: for y in 0..<height {
            let row = pixels + y * stride
            var all: UInt32 = 0xFF00_0000
            for x in 0..<width { all &= row[x] }
            if all & 0xFF00_0000 != 0xFF00_0000 {
                opaque = false
                break rows
            }
        }
        opaqueLevels[index] = opaque
        return opaque
    }

    /// Bytes of pixels held at most: the image, its reductions, a blurred copy of one of them
    /// and a faded copy (each at most the ½ one's size).
    var bytes: Int {
        var w = key.width
        var h = key.height
        var total = 0
        var largestReduction = 0
        for _ in Blur.factors {
            total += w * h * 4
            if w != key.width || h != key.height { largestReduction = max(largestReduction, w * h * 4) }
            w = (w + 1) / 2
            h = (h + 1) / 2
        }
        return total + 2 * largestReduction
    }

    func level(_ index: Int) -> OpaquePointer {
        if let surface = levels[index] { return surface }
        let surface = Blur.halve(level(index - 1))
        levels[index] = surface
        return surface
    }

    /// `surface` (a reduction, or the last blurred image) times `opacity` — over the opaque
    /// colour `over` when given (then opaque: an RGB24 view of it is returned) — kept until
    /// any of them changes (`blurs` counts blurred images made: a new one may reuse a freed
    /// one's address).
    func faded(_ surface: OpaquePointer, opacity: Double, over: Color? = nil) -> OpaquePointer {
        if let fade, fade.source == surface, fade.blurs == blurs, fade.opacity == opacity, fade.over == over {
            return fade.drawn
        }
        fade?.destroyView()
        let width = cairo_image_surface_get_width(surface)
        let height = cairo_image_surface_get_height(surface)
        // Copied, then scaled in place (DEST_IN a solid): `paint_with_alpha` here is SOURCE
        // through a solid mask, pixman's general path (≈ 5× slower; Painter.alphaTimes).
        let target = Self.copy(of: surface, into: fade?.surface)
        let cr = cairo_create(target)!
        cairo_set_operator(cr, CAIRO_OPERATOR_DEST_IN)
        cairo_set_source_rgba(cr, 0, 0, 0, opacity)
        cairo_paint(cr)
        var view: OpaquePointer? = nil
        if let over {
            // What shows of the colour through the faded image: every pixel opaque after it.
            cairo_set_operator(cr, CAIRO_OPERATOR_DEST_OVER)
            cairo_set_source_rgb(cr, over.red, over.green, over.blue)
            cairo_paint(cr)
            cairo_surface_flush(target)
            view = cairo_image_surface_create_for_data(
                cairo_image_surface_get_data(target),
                CAIRO_FORMAT_RGB24,
                width,
                height,
                cairo_image_surface_get_stride(target)
            )
        }
        cairo_destroy(cr)
        let made = Fade(source: surface, blurs: blurs, opacity: opacity, over: over, surface: target, view: view)
        fade = made
        return made.drawn
    }

    /// An ARGB32 copy of `source`: into `old`'s pixels when it has the same size (a new 2 MB
    /// image costs its pages' faults and zeroing, ≈ 0.3 ms, every frame), else a new image
    /// (`old` destroyed).
    private static func copy(of source: OpaquePointer, into old: OpaquePointer?) -> OpaquePointer {
        let width = cairo_image_surface_get_width(source)
        let height = cairo_image_surface_get_height(source)
        let target: OpaquePointer
        if let old, cairo_image_surface_get_width(old) == width, cairo_image_surface_get_height(old) == height {
            target = old
        } else {
            if let old { cairo_surface_destroy(old) }
            target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height)!
        }
        let cr = cairo_create(target)!
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_surface(cr, source, 0, 0)
        cairo_paint(cr)
        cairo_destroy(cr)
        return target
    }

    /// The image to draw for a frame with blur `sigma` (device pixels), and the factor to
    /// enlarge it by: the sharp image (factor 1), or the reduction blurred (in `bands`). The
    /// opacity is the caller's (applied as it composites).
    func frame(sigma: Double, bands: Int = Bands.count) -> (factor: Int, surface: OpaquePointer) {
        let plan = Blur.plan(sigma: sigma)
        let factor = Blur.factors[plan.level]
        if factor == 1 { return (1, level(0)) }
        let kernel = Blur.kernel(sigma: plan.sigma)
        if kernel.isEmpty { return (factor, level(plan.level)) }
        if let last, last.factor == factor, last.kernel == kernel {
            return (factor, last.surface)
        }
        let surface = Self.copy(of: level(plan.level), into: last?.surface)
        Blur.gaussian(surface, sigma: plan.sigma, bands: bands)
        blurs += 1
        last = (kernel, factor, surface)
        return (factor, surface)
    }
}
