import Synchronization
import Threads
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// A streaming call's output written straight to its connection's socket, from whichever
/// thread produces a message (curtaind's frame fan-out: one loop over the observers, a
/// non-blocking send each), instead of through NIO's pipeline and event loop.
///
/// It owns a dup() of the channel's descriptor, so NIO closing its own never leaves this one
/// writing to a reused number; it is closed with the channel (`close`). Messages queue in
/// order: what the socket does not take now is kept and written by `SocketPoller` once the
/// socket is writable again. A `replaceable` message (a frame) that still waits untouched is
/// replaced by the next replaceable one queued right behind it, so a peer that stops reading
/// holds one frame between two events, not every frame.
final class SocketWriter: Sendable {
    private struct Message {
        var bytes: [UInt8]
        var replaceable: Bool
    }

    private struct State {
        var fd: Int32
        var queue: [Message] = []
        var head = 0
        /// Bytes of the head message already written.
        var offset = 0
        var queuedBytes = 0
        var waitingSince: ContinuousClock.Instant?
        /// No more messages are taken (aborted or closed).
        var ending = false
        /// Called once the queue has drained after `finish`.
        var onDrained: (@Sendable () -> Void)?
        var drainWaiters: [CheckedContinuation<Bool, Never>] = []
        var polled = false
        var pending: ArraySlice<Message> { queue[head...] }
    }

    private let state: Mutex<State>
    /// Waits for the socket when it is full.
    let poller: SocketPoller

    /// Takes ownership of `fd` (a dup of the channel's).
    init(fd: Int32, poller: SocketPoller = .shared) {
        state = Mutex(State(fd: fd))
        self.poller = poller
    }

    /// Queues `bytes` (one whole message) behind everything queued and writes what the socket
    /// takes now. False once the writer no longer takes messages (the peer is gone, or the
    /// connection was cut off or handed back).
    @discardableResult
    func write(_ bytes: [UInt8], replaceable: Bool) -> Bool {
        let (accepted, wake): (Bool, Wake?) = state.withLock { s in
            guard !s.ending, s.fd >= 0 else { return (false, nil) }
            // Nothing queued (the usual case: a reader that keeps up): one send, and the queue
            // is not touched unless the socket leaves part of the message.
            if s.head == s.queue.count {
                let n = bytes.withUnsafeBytes { raw in
                    send(s.fd, raw.baseAddress!, raw.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                }
                if n == bytes.count { return (true, nil) }
                if n > 0 { s.offset = n }  // the rest, queued below, goes first
            }
            if replaceable, s.queue.count > s.head, s.queue[s.queue.count - 1].replaceable,
                s.queue.count - 1 > s.head || s.offset == 0
            {
                s.queuedBytes += bytes.count - s.queue[s.queue.count - 1].bytes.count
                s.queue[s.queue.count - 1].bytes = bytes
                return (true, nil)
            }
            s.queue.append(Message(bytes: bytes, replaceable: replaceable))
            s.queuedBytes += bytes.count
            return (true, s.queue.count - s.head == 1 ? Self.flush(&s, self) : nil)
        }
        wake?.run()
        return accepted
    }

    var isClosed: Bool { state.withLock { $0.fd < 0 } }

    /// Bytes queued and not yet written.
    var queuedBytes: Int { state.withLock { $0.queuedBytes - $0.offset } }

    /// Messages queued that may not be replaced (replies other than frames).
    var queuedMessages: Int { state.withLock { s in s.pending.reduce(0) { $0 + ($1.replaceable ? 0 : 1) } } }

    /// How long the oldest queued message has waited for the socket; nil if none waits.
    var waiting: Duration? { state.withLock { $0.waitingSince.map { $0.duration(to: .now) } } }

    /// Returns once everything queued is written (true) or the writer is closed (false).
    func drained() async -> Bool {
        await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { s in
                if s.fd < 0 { return false }
                if s.head == s.queue.count { return true }
                s.drainWaiters.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// The last message: queued past every limit; nothing is taken after it, and `then` runs
    /// once it is written (not if the writer is closed first).
    func finish(with bytes: [UInt8], then: @escaping @Sendable () -> Void) {
        let wake: Wake = state.withLock { s in
            guard !s.ending, s.fd >= 0 else { return Wake() }
            s.ending = true
            s.onDrained = then
            s.queue.append(Message(bytes: bytes, replaceable: false))
            s.queuedBytes += bytes.count
            return s.queue.count - s.head == 1 ? Self.flush(&s, self) : Wake()
        }
        wake.run()
    }

    /// Closes the descriptor; whatever is queued is dropped. Idempotent.
    func close() {
        let waiters: [CheckedContinuation<Bool, Never>] = state.withLock { s in
            guard s.fd >= 0 else { return [] }
            Glibc.close(s.fd)
            s.fd = -1
            s.ending = true
            s.queue = []
            s.head = 0
            s.offset = 0
            s.queuedBytes = 0
            s.waitingSince = nil
            s.onDrained = nil
            defer { s.drainWaiters = [] }
            return s.drainWaiters
        }
        poller.remove(self)
        waiters.forEach { $0.resume(returning: false) }
    }

    /// The socket is writable again (or failed): called by `SocketPoller`.
    func writable() {
        state.withLock { s in
            s.polled = false
            return s.fd >= 0 && s.head < s.queue.count ? Self.flush(&s, self) : Wake()
        }.run()
    }

    /// What to do once the lock is released: resume those waiting for the drain, run the
    /// finish callback, or have the poller watch the socket.
    private struct Wake {
        var drained: [CheckedContinuation<Bool, Never>] = []
        var result = true
        var then: (@Sendable () -> Void)?
        var poll: SocketWriter?
        var fd: Int32 = -1
        func run() {
            drained.forEach { $0.resume(returning: result) }
            then?()
            if let poll { poll.poller.watch(poll, fd: fd) }
        }
    }

    /// Writes queued messages until the queue is empty or the socket is full. Under the lock.
    private static func flush(_ s: inout State, _ writer: SocketWriter) -> Wake {
        var wake = Wake()
        while s.head < s.queue.count {
            let (fd, offset) = (s.fd, s.offset)
            let n = s.queue[s.head].bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    if s.waitingSince == nil { s.waitingSince = .now }
                    if !s.polled {
                        s.polled = true
                        wake.poll = writer
                        wake.fd = s.fd
                    }
                    return wake
                }
                // The peer is gone: nothing more can be written; the channel closes on its own.
                s.ending = true
                s.queue = []
                s.head = 0
                s.offset = 0
                s.queuedBytes = 0
                s.waitingSince = nil
                s.onDrained = nil
                wake.drained = s.drainWaiters
                wake.result = false
                s.drainWaiters = []
                return wake
            }
            s.offset += n
            s.waitingSince = nil
            if s.offset == s.queue[s.head].bytes.count {
                s.queuedBytes -= s.offset
                s.offset = 0
                s.head += 1
            } else {
                s.waitingSince = .now  // partly taken: the rest waits for room
            }
        }
        s.queue.removeAll(keepingCapacity: true)
        s.head = 0
        s.waitingSince = nil
        wake.drained = s.drainWaiters
        s.drainWaiters = []
        if s.ending, let then = s.onDrained {
            s.onDrained = nil
            wake.then = then
        }
        return wake
    }
}

/// One thread that waits (poll(2)) for the sockets of stalled `SocketWriter`s to take more,
/// and lets each write its queue again. Writers are here only while their socket is full.
///
/// The thread and its wake-up pipe exist only while some writer waits (and `linger` after the
/// last one left, so a reader that stalls again and again does not start a thread each time):
/// an idle daemon holds neither, and after a burst of slow observers its descriptors are back
/// to the idle count.
final class SocketPoller: Sendable {
    static let shared = SocketPoller()

    /// How long the thread waits with nothing to watch before it ends.
    static let defaultLinger: Duration = .seconds(1)

    private struct State {
        var watched: [ObjectIdentifier: (SocketWriter, Int32)] = [:]
        /// The running thread's wake-up pipe (read end, write end); nil when no thread runs.
        var pipe: (read: Int32, write: Int32)?
        /// Thread starts, for tests.
        var started = 0
    }

    private let state = Mutex(State())
    private let lingerMilliseconds: Int32

    init(linger: Duration = SocketPoller.defaultLinger) {
        let (seconds, attoseconds) = linger.components
        lingerMilliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    func watch(_ writer: SocketWriter, fd: Int32) {
        state.withLock { s in
            s.watched[ObjectIdentifier(writer)] = (writer, fd)
            if let pipe = s.pipe { Self.wake(pipe.write) } else { start(&s) }
        }
        // Closed meanwhile: its number may belong to another file already.
        if writer.isClosed { remove(writer) }
    }

    func remove(_ writer: SocketWriter) {
        state.withLock { s in
            if s.watched.removeValue(forKey: ObjectIdentifier(writer)) != nil, let pipe = s.pipe {
                Self.wake(pipe.write)
            }
        }
    }

    /// The wake-up pipe's descriptors while the thread runs (nil when it does not), and how
    /// many times a thread was started.
    var running: (pipe: (read: Int32, write: Int32)?, started: Int) {
        state.withLock { ($0.pipe, $0.started) }
    }

    /// Under the lock, so the thread cannot close the pipe between the lookup and the write.
    private static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = Glibc.write(fd, &byte, 1)
    }

    /// Creates the pipe and the thread. Under the lock.
    private func start(_ s: inout State) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { fatalError("SocketPoller: pipe: \(errno)") }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        s.pipe = (ends[0], ends[1])
        s.started += 1
        guard DetachedThread.start(name: "socket-poller", { [self] in serve() }) else {
            fatalError("SocketPoller: cannot create its thread")
        }
    }

    private func serve() {
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            // The set is read and, when empty after a linger, the thread ends under the same
            // lock `watch` takes: a writer added meanwhile either is seen here or starts a new
            // thread with a new pipe.
            guard
                let (wakeRead, writers) = state.withLock({ s -> (Int32, [(SocketWriter, Int32)])? in
                    guard let pipe = s.pipe else { return nil }
                    return (pipe.read, Array(s.watched.values))
                })
            else { return }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            fds += writers.map { pollfd(fd: $0.1, events: Int16(POLLOUT), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), writers.isEmpty ? lingerMilliseconds : -1)
            if ready < 0 { continue }
            if ready == 0 {
                let ended = state.withLock { s -> Bool in
                    guard s.watched.isEmpty, let pipe = s.pipe else { return false }
                    Glibc.close(pipe.read)
                    Glibc.close(pipe.write)
                    s.pipe = nil
                    return true
                }
                if ended { return }
                continue
            }
            if fds[0].revents != 0 { while read(wakeRead, &drain, drain.count) > 0 {} }
            for (index, entry) in writers.enumerated() where fds[index + 1].revents != 0 {
                // Off the set before it writes: a writer still full puts itself back.
                state.withLock { _ = $0.watched.removeValue(forKey: ObjectIdentifier(entry.0)) }
                entry.0.writable()
            }
        }
    }
}
