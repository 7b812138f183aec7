#if canImport(Glibc)
import Glibc
#endif

/// A detached pthread running a closure: what Foundation's `Thread` gave, without linking
/// Foundation into curtaind (with ICU it was a third of its memory; BENCHMARKS.md, scenario 5).
public enum DetachedThread {
    /// Runs `body` on a new detached thread named `name` (at most 15 bytes are kept). False,
    /// and `body` not run, when no thread can be created: the caller decides what then.
    @discardableResult
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread,
            nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                // The thread's name for ps and gdb (pthread_setname_np is not in Swift's Glibc).
                let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
                if comm >= 0 {
                    let name = Array(box.name.utf8.prefix(15))
                    _ = name.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
                    close(comm)
                }
                box.body()
                return nil
            },
            box
        )
        guard created == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private final class Box: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
