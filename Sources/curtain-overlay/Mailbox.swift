import CurtainCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the overlay should show now: written by the watcher thread, read by the Wayland loop.
/// Only the newest picture is kept (a frame that was never shown is simply replaced), and
/// `generation` counts changes so the loop draws each one at most once.
struct Target: Sendable {
    enum Content: Sendable, Equatable {
        /// Nothing: the app (or whatever is below) shows, and input passes through.
        case clear
        case frame(FrameContent)
    }
    var content: Content = .clear
    var generation = 0
}

struct FrameContent: Sendable, Equatable {
    var launch: Int64
    /// The scene file and, from GetScene, the hash of its bytes (a changed file is loaded again).
    var scene: String
    var sceneHash: String?
    var textVariant: Int
    var values: [String: Value]
    /// Once the reveal starts the overlay takes no input (an empty input region): the app gets it.
    var passThrough: Bool
    /// When the frame was due, in seconds on CLOCK_BOOTTIME (its time plus curtaind's clock
    /// origin), for --trace; nil when curtaind does not say its origin.
    var due: Double? = nil
    /// When the watcher had it (CLOCK_BOOTTIME seconds, for --trace).
    var received: Double? = nil
}

final class Mailbox: Sendable {
    /// Set by SIGTERM/SIGINT; both threads look at it when they wake.
    static let stopRequested = Atomic<Int>(0)
    static var stopped: Bool { stopRequested.load(ordering: .relaxed) != 0 }
    /// The pipe a signal handler writes to (one mailbox per process; write(2) is async-signal-safe).
    nonisolated(unsafe) static var signalFD: Int32 = -1

    /// Readable when something changed: the Wayland loop polls it beside the display's fd.
    let fd: Int32
    private let writeFD: Int32
    private let target = Mutex(Target())

    init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("pipe: \(String(cString: strerror(errno)))") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fd = ends[0]
        writeFD = ends[1]
        Mailbox.signalFD = writeFD
    }

    func publish(_ content: Target.Content) {
        let changed = target.withLock { target -> Bool in
            guard target.content != content else { return false }
            target.content = content
            target.generation += 1
            return true
        }
        if changed { wake() }
    }

    var current: Target { target.withLock { $0 } }

    /// A full pipe already wakes the reader: a failed write loses nothing.
    func wake() {
        var one: UInt8 = 1
        _ = write(writeFD, &one, 1)
    }
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(fd, &bytes, bytes.count) > 0 {}
    }

    static func wakeForSignal() {
        var one: UInt8 = 1
        _ = write(signalFD, &one, 1)
    }
}

/// Seconds on CLOCK_BOOTTIME (curtaind's clock counts from an origin on it).
func bootTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_BOOTTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds this thread has used.
func threadCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Monotonic seconds.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
