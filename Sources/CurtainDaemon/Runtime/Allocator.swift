// <malloc.h> is not part of Swift's Glibc module: the two calls, declared here.
@_silgen_name("mallopt") private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
@_silgen_name("malloc_trim") private func malloc_trim(_ pad: Int) -> Int32

/// curtaind's settings of glibc's allocator, all in this one place (issue 18: RSS must come
/// back after hostile clients).
///
/// glibc raises its mmap threshold to the size of the largest block freed so far (up to
/// 32 MiB) and the trim threshold to twice that: after one 4 MiB message, every later buffer
/// under 8 MiB came from a thread's heap, and a heap is only given back above 16 MiB free at
/// its top. A burst of large messages left 7–12 MiB resident for ever. Setting both thresholds
/// turns that adjustment off.
enum Allocator {
    /// <malloc.h>'s M_TRIM_THRESHOLD and M_MMAP_THRESHOLD.
    private static let trimThresholdParameter: Int32 = -1
    private static let mmapThresholdParameter: Int32 = -3

    /// Larger allocations (a big message's buffer) are mappings of their own, unmapped when
    /// freed: glibc's default, kept fixed.
    static let mmapThreshold: Int32 = 128 * 1024
    /// Free memory at the top of a heap beyond this goes back to the kernel: glibc's default,
    /// kept fixed.
    static let trimThreshold: Int32 = 128 * 1024

    /// At start-up, before the first thread allocates.
    static func configure() {
        _ = mallopt(mmapThresholdParameter, mmapThreshold)
        _ = mallopt(trimThresholdParameter, trimThreshold)
    }

    /// Gives free pages inside the heaps back (the trim threshold only reaches a heap's top):
    /// called when a burst of connections has gone (`VarlinkServer.Configuration.onDrained`).
    /// Costs well under a millisecond for curtaind's few MiB of heap.
    @Sendable static func releaseFreeMemory() {
        _ = malloc_trim(0)
    }
}
