import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// A pixel loop split into bands that run at once, one per core (at most `maximum`), and
/// joined before it returns: the blur's passes (Blur.swift) and a blurred layer's enlargement
/// (Effects.swift) are seed 003's frame on a 2-core device, and each band's pixels depend on
/// nothing another band writes. The split never changes a pixel (tests compare 1 band with 3).
enum Bands {
    /// Most bands a loop is split into.
    static let maximum = 4
    /// Bands by default: the online cores, 1 to `maximum`.
    static let count = min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), maximum)
    /// Band boundaries fall on multiples of this many items (for columns: 16 pixels, one
    /// 64-byte cache line, so that two bands never write the same line).
    static let alignment = 16

    /// `body` over `0..<total` split into at most `bands` contiguous ranges (each at least
    /// `minimum` items, boundaries on `alignment`), run at once; returns when all are done.
    static func run(_ total: Int, bands: Int = count, minimum: Int = 32, _ body: (Range<Int>) -> Void) {
        let ranges = split(total, bands: bands, minimum: minimum)
        if ranges.count <= 1 {
            if total > 0 { body(0..<total) }
            return
        }
        // The bands share raw pixel pointers, which Swift cannot prove disjoint; each band's
        // items are its own (the callers' contract), and all are joined before `run` returns.
        withoutActuallyEscaping(body) { body in
            let job = UncheckedJob(body: body, ranges: ranges)
            DispatchQueue.concurrentPerform(iterations: ranges.count) { job.body(job.ranges[$0]) }
        }
    }

    private struct UncheckedJob: @unchecked Sendable {
        let body: (Range<Int>) -> Void
        let ranges: [Range<Int>]
    }

    /// The ranges `run` hands out: contiguous, in order, covering `0..<total`.
    static func split(_ total: Int, bands: Int, minimum: Int = 32) -> [Range<Int>] {
        guard total > 0 else { return [] }
        let n = max(1, min(bands, total / max(minimum, 1), maximum))
        guard n > 1 else { return [0..<total] }
        var bounds = [0]
        for i in 1..<n {
            let even = total * i / n
            bounds.append(max(bounds[i - 1], even / alignment * alignment))
        }
        bounds.append(total)
        return zip(bounds, bounds.dropFirst()).filter { $0 < $1 }.map { $0..<$1 }
    }
}
