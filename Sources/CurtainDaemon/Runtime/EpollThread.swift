import CNotify
import Threads

#if canImport(Glibc)
import Glibc
#endif

/// An epoll descriptor and the thread that serves it, made together: the shape of
/// `ProcessExits` (apps' exits) and `AppOutput` (apps' output), each one thread for all apps.
enum EpollThread {
    /// A new epoll descriptor, with a thread named `name` running `serve` on it; nil (and
    /// nothing left open) when either cannot be made.
    static func start(name: String, serve: @escaping @Sendable (Int32) -> Void) -> Int32? {
        let epoll = curtain_epoll_create()
        guard epoll >= 0 else { return nil }
        guard DetachedThread.start(name: name, { serve(epoll) }) else {
            close(epoll)
            return nil
        }
        return epoll
    }
}
