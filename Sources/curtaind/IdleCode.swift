import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Gives back the code and read-only data pages that start-up, launches and calls touched, once
/// curtaind is idle (issue 18: idle RSS ≤ 3× plymouthd's; BENCHMARKS.md, "curtaind's memory").
///
/// Most of an idle curtaind's resident set is clean file pages it mapped while starting,
/// launching or answering a call: that code is spread over curtaind, NIO and the Swift runtime
/// (one Ping touches ≈ 100 places), and each fault maps 64 KiB around it (the kernel's
/// fault-around, which `MADV_RANDOM` does not stop). Those pages are
/// identical to the page cache, so `MADV_DONTNEED` on them only drops curtaind's mapping: the
/// next use faults them back from the page cache (a minor fault, no IO). Only private mappings
/// that are not writable and have no anonymous (copy-on-write) page are released: their content
/// is the file's, so nothing written is lost.
enum IdleCode {
    /// How long curtaind stays idle (no launch in flight) before it releases the pages: long
    /// enough that launches in quick succession keep their code mapped.
    static let delay: Duration = .seconds(3)

    /// `CURTAIN_IDLE_CODE=keep` keeps the pages mapped (to measure what releasing saves; debugging).
    static let enabled = getenv("CURTAIN_IDLE_CODE").map { String(cString: $0) } != "keep"

    /// Counts each busy/idle change, so that a release armed for an idle period that ended
    /// does not run.
    private static let generation = Mutex<UInt64>(0)

    /// The daemon's idle callback (`Daemon.Options.onIdle`): true once serving and when the last
    /// launch in flight ended, false when one starts. While idle, every `delay` the pages go
    /// again if anything mapped some back since (a client's call does: see `refaults`).
    static func idle(_ idle: Bool) {
        guard enabled else { return }
        let current = generation.withLock {
            $0 &+= 1
            return $0
        }
        guard idle else { return }
        Task.detached {
            var faultsAtRelease: Int?
            while (try? await Task.sleep(for: delay)) != nil, generation.withLock({ $0 }) == current {
                let faults = minorFaults()
                if let last = faultsAtRelease, faults - last < refaults { continue }
                release()
                faultsAtRelease = minorFaults()
            }
        }
    }

    /// Minor page faults since the last release below which the pages are left alone: a quiet
    /// daemon (the watchdog's ping, a timer) maps next to nothing back, and releasing costs a
    /// read of /proc/self/smaps.
    static let refaults = 16

    /// This process's minor page faults so far (getrusage).
    static func minorFaults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_minflt
    }

    /// `MADV_DONTNEED` on every private, non-writable file mapping without anonymous pages, as
    /// /proc/self/smaps lists them. Returns how many mappings it released.
    @discardableResult
    static func release() -> Int {
        var released = 0
        for mapping in releasable(smaps: readProcFile("/proc/self/smaps")) {
            if madvise(UnsafeMutableRawPointer(bitPattern: mapping.lowerBound), mapping.count, MADV_DONTNEED) == 0 {
                released += 1
            }
        }
        return released
    }

    /// The address ranges of /proc/PID/smaps's text that may be released: file-backed (a path),
    /// private, not writable (`r-xp`, `r--p`), and `Anonymous: 0 kB`.
    static func releasable(smaps: [UInt8]) -> [Range<UInt>] {
        var ranges: [Range<UInt>] = []
        var candidate: Range<UInt>?
        for line in smaps.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard let first = fields.first else { continue }
            if first.last == UInt8(ascii: ":") {
                // A field of the current mapping.
                if let range = candidate, first.elementsEqual("Anonymous:".utf8) {
                    if fields.count > 1, fields[1].elementsEqual("0".utf8) { ranges.append(range) }
                    candidate = nil
                }
                continue
            }
            // A mapping's header: "start-end perms offset dev inode [path]".
            candidate = nil
            guard fields.count >= 6, fields[1].elementsEqual("r-xp".utf8) || fields[1].elementsEqual("r--p".utf8),
                fields[5].first == UInt8(ascii: "/"), !fields[5].starts(with: "/memfd:".utf8),
                let dash = first.firstIndex(of: UInt8(ascii: "-")),
                let start = UInt(String(decoding: first[..<dash], as: UTF8.self), radix: 16),
                let end = UInt(String(decoding: first[(dash + 1)...], as: UTF8.self), radix: 16), start < end
            else { continue }
            candidate = start..<end
        }
        return ranges
    }

    /// A /proc file's bytes (its size is not known ahead: read until the end).
    private static func readProcFile(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }
}
