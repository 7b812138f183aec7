import Synchronization
import Threads

#if canImport(Glibc)
import Glibc
#endif

/// A pixel loop split into bands that run at once, one per core (at most `maximum`), and
/// joined before it returns: the blur's passes (Blur.swift) and a blurred layer's enlargement
/// (Effects.swift) are seed 003's frame on a 2-core device, and each band's pixels depend on
/// nothing another band writes. The split never changes a pixel (tests compare 1 band with 3).
///
/// The bands run on threads of their own (`Workers`), never on Dispatch's global queues: Swift
/// concurrency's tasks run there, and a band queued behind tasks blocked in system calls held
/// up the frame, and the tasks waiting for the frame's caller, for seconds (a test process
/// stalled so in CI). The calling thread runs the first band and takes back any band no worker
/// has started, so a split is never slower than the loop on one thread by more than a wake-up.
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
        withoutActuallyEscaping(body) { body in Workers.shared.run(ranges, body) }
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

    /// `maximum − 1` threads, started on first use and kept for the process, that take bands
    /// from one queue.
    final class Workers: @unchecked Sendable {
        static let shared = Workers()

        /// One `run`: the loop's body (dropped before `run` returns: it must not outlive
        /// `Bands.run`, which `withoutActuallyEscaping` checks) and the semaphore its bands post.
        private final class Call: @unchecked Sendable {
            var body: ((Range<Int>) -> Void)?
            let done: UnsafeMutablePointer<sem_t>
            init(_ body: @escaping (Range<Int>) -> Void) {
                self.body = body
                done = .allocate(capacity: 1)
                sem_init(done, 0, 0)
            }
            deinit {
                sem_destroy(done)
                done.deallocate()
            }
            /// Runs one band; the body is let go at the end of this call.
            func perform(_ range: Range<Int>) { body!(range) }
        }
        /// One band: its call and range.
        private struct Job: @unchecked Sendable {
            let call: Call
            let range: Range<Int>
        }
        private struct State {
            var jobs: [Job] = []
            var threads = 0
        }
        private let state = Mutex(State())
        /// Counts queued jobs (workers wait on it).
        private let queued: UnsafeMutablePointer<sem_t> = {
            let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
            sem_init(semaphore, 0, 0)
            return semaphore
        }()

        /// Runs `body` over every range: the first on this thread, the others by the workers
        /// or, when none has taken them yet, by this thread too; returns when all are done.
        func run(_ ranges: [Range<Int>], _ body: @escaping (Range<Int>) -> Void) {
            let call = Call(body)
            defer { call.body = nil }
            let others = ranges.dropFirst().map { Job(call: call, range: $0) }
            let start = state.withLock { s -> Int in
                s.jobs.append(contentsOf: others)
                let missing = max(0, min(others.count, Bands.maximum - 1) - s.threads)
                s.threads += missing
                return missing
            }
            for _ in 0..<start { startThread() }
            for _ in others { sem_post(queued) }
            call.perform(ranges[0])
            // Bands no worker has started yet: run here rather than wait for a wake-up.
            var ran = 0
            while let range = state.withLock({ s -> Range<Int>? in
                guard let at = s.jobs.firstIndex(where: { $0.call === call }) else { return nil }
                return s.jobs.remove(at: at).range
            }) {
                call.perform(range)
                ran += 1
            }
            for _ in ran..<others.count { while sem_wait(call.done) != 0 {} }
        }

        private func startThread() {
            // No thread: the callers run every band themselves (they take back queued ones).
            guard DetachedThread.start(name: "curtain-band", { [self] in serve() }) else {
                state.withLock { $0.threads -= 1 }
                return
            }
        }

        /// A worker: takes a queued band (one its caller has not taken back), runs it, says so.
        private func serve() {
            while true {
                while sem_wait(queued) != 0 {}
                guard let job = state.withLock({ s in s.jobs.isEmpty ? nil : s.jobs.removeFirst() }) else { continue }
                job.call.perform(job.range)
                sem_post(job.call.done)
            }
        }
    }
}
