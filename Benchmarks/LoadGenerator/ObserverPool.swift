import CLoadGenerator
import CurtainctlSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Many Varlink observer connections served by one thread with epoll: connects, sends one
/// call on each, then hands every complete reply (NUL-terminated, as it arrived) to `onMessage`
/// with the instant its bytes were read. One thread and no JSON parsing per message keep the
/// load generator's own cost small next to the daemon's on a two-core machine.
final class ObserverPool: @unchecked Sendable {
    typealias Handler = (_ connection: Int, _ arrived: Int64, _ message: UnsafeRawBufferPointer) -> Void

    private var fds: [Int32] = []
    private var buffers: [[UInt8]] = []
    private let epoll = load_epoll_create()
    private var thread: pthread_t?
    private let handler: Handler
    /// Set to stop reading (a stalled pool is never started at all).
    private let stop = Atomic<Bool>(false)
    /// Connections the daemon closed.
    private(set) var closed = 0

    init(handler: @escaping Handler) {
        self.handler = handler
    }

    /// Opens `count` connections to `path` and sends `call` (a NUL-terminated message) on each.
    func connect(count: Int, to path: String, call: [UInt8]) throws(LoadError) {
        for index in fds.count..<(fds.count + count) {
            let fd: Int32
            do { fd = try DaemonClient.connect(explicit: path).fd } catch { throw .daemon("\(error)") }
            var offset = 0
            while offset < call.count {
                let n = call[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw .system("send", errno) }
                offset += n
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            guard load_epoll_add(epoll, fd, UInt64(index)) == 0 else { throw .system("epoll_ctl", errno) }
            fds.append(fd)
            buffers.append([])
        }
    }

    /// Starts reading on a thread of its own.
    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        pthread_create(
            &thread,
            nil,
            { argument in
                let pool = Unmanaged<ObserverPool>.fromOpaque(argument!).takeRetainedValue()
                pool.loop()
                return nil
            },
            box
        )
        self.thread = thread
    }

    /// Stops the reading thread and closes every connection.
    func shutdown() {
        stop.store(true, ordering: .releasing)
        if let thread { pthread_join(thread, nil) }
        thread = nil
        fds.forEach { _ = close($0) }
        fds = []
    }

    private func loop() {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var tags = [UInt64](repeating: 0, count: 256)
        while !stop.load(ordering: .acquiring) {
            let ready = load_epoll_wait(epoll, &tags, Int32(tags.count), 50)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            for tag in tags[0..<Int(ready)] { drain(Int(tag), into: &chunk) }
        }
    }

    private func drain(_ index: Int, into chunk: inout [UInt8]) {
        let fd = fds[index]
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { return }  // EAGAIN: all read
            if n == 0 {
                closed += 1
                _ = load_epoll_remove(epoll, fd)
                return
            }
            let arrived = Time.now()
            buffers[index] += chunk[0..<n]
            var start = 0
            buffers[index].withUnsafeBytes { bytes in
                while let end = bytes[start...].firstIndex(of: 0) {
                    handler(index, arrived, UnsafeRawBufferPointer(rebasing: bytes[start...end]))
                    start = end + 1
                }
            }
            buffers[index].removeFirst(start)
        }
    }
}
