#if canImport(Glibc)
import Glibc
#endif

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
///
/// glibc's per-thread caches (tcache) are turned off: a thread keeps up to seven freed chunks
/// of each small size for itself, outside the heap, where `malloc_trim` cannot reach them, and
/// a page holding one cannot be given back. After a burst of hostile clients the event loop's
/// cache pinned ≈ 1 MiB of the burst's heap for good (scenario 5: +1176 KiB after three bursts
/// with the caches, +372 KiB without; scenarios 4 and 6 showed no cost).
public enum Allocator {
    /// <malloc.h>'s M_TRIM_THRESHOLD and M_MMAP_THRESHOLD.
    private static let trimThresholdParameter: Int32 = -1
    private static let mmapThresholdParameter: Int32 = -3

    /// Larger allocations (a big message's buffer) are mappings of their own, unmapped when
    /// freed: glibc's default, kept fixed.
    static let mmapThreshold: Int32 = 128 * 1024
    /// Free memory at the top of a heap beyond this goes back to the kernel: glibc's default,
    /// kept fixed.
    static let trimThreshold: Int32 = 128 * 1024

    /// The tunable, and where the caller's own GLIBC_TUNABLES waits across the re-execution
    /// ("=" and its value, or "-" for none).
    static let threadCachesOff = "glibc.malloc.tcache_count=0"
    static let savedTunables = "CURTAIN_SAVED_GLIBC_TUNABLES"

    /// Turns glibc's per-thread caches off. Tunables are read only when a program is loaded,
    /// so this executes the program again (the same pid, name, descriptors and arguments) with
    /// `threadCachesOff` added to GLIBC_TUNABLES, once; in that second run it puts the caller's
    /// environment back, so apps inherit it unchanged. Nothing happens when the caller chose a
    /// tcache count itself (valgrind's runs set one: a program executed again would leave
    /// valgrind), and a failed exec leaves the caches on. Call it first in `main`, for the
    /// daemon only: it may not return to a test.
    public static func turnOffThreadCaches() -> ThreadCaches {
        if let saved = getenv(savedTunables).map({ String(cString: $0) }) {
            restore(saved)
            return .off
        }
        let given = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        if let given, given.contains("glibc.malloc.tcache_count") { return .chosen(given) }
        let saved = given.map { "=" + $0 } ?? "-"
        let current = given.flatMap { $0.isEmpty ? nil : $0 }
        setenv(savedTunables, saved, 1)
        setenv("GLIBC_TUNABLES", current.map { $0 + ":" + threadCachesOff } ?? threadCachesOff, 1)
        // By its path, so the process keeps its name (comm is the executed file's name; through
        // /proc/self/exe it would be "exe"), unless the file is gone.
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        let file = length > 0 ? String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        execv(file.hasPrefix("/") && !file.hasSuffix(" (deleted)") ? file : "/proc/self/exe", CommandLine.unsafeArgv)
        let error = errno
        restore(saved)  // not executed again (no /proc, say): on with the caches
        return .on(error)
    }

    /// What became of glibc's per-thread caches (logged at start-up).
    public enum ThreadCaches: Sendable, Equatable, CustomStringConvertible {
        case off
        /// The caller set a tcache count: GLIBC_TUNABLES as given.
        case chosen(String)
        /// The program could not be executed again (errno).
        case on(Int32)

        public var description: String {
            switch self {
            case .off: "glibc's thread caches off"
            case .chosen(let tunables): "glibc's thread caches as GLIBC_TUNABLES sets them (\(tunables))"
            case .on(let error): "glibc's thread caches on (cannot execute curtaind again: \(POSIX.errorText(error)))"
            }
        }
    }

    private static func restore(_ saved: String) {
        if saved.hasPrefix("=") {
            setenv("GLIBC_TUNABLES", String(saved.dropFirst()), 1)
        } else {
            unsetenv("GLIBC_TUNABLES")
        }
        unsetenv(savedTunables)
    }

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
