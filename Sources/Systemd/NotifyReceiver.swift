import CNotify
import Logging
import Synchronization
import Threads
import UnixSockets

#if canImport(Glibc)
import Glibc
#endif

/// The service-manager side of sd_notify: a datagram socket that apps send to, with the
/// kernel's word on who sent each datagram (SO_PASSCRED). A thread of its own drains it
/// continuously — the kernel queues only `net.unix.max_dgram_qlen` datagrams (10 here) and a
/// sender blocks when they are full — and closes every passed descriptor at once but a
/// BARRIER=1's, which travels with its datagram (`NotifyBarrier`) until the consumer has
/// handled what came before it.
///
/// What is read waits in a `NotifyBacklog` until the consumer takes it: a queue per sender,
/// served round-robin, so one process flooding the socket delays and drops only its own
/// messages, and an app flooding itself with STATUS= still gets its READY=1 through. Drops
/// are logged through a `LogThrottle`.
public final class NotifyReceiver: TaskExecutor, Sendable {
    public struct Datagram: Sendable {
        public let pid: pid_t
        /// The sender's session, looked up the moment the datagram was read (a short-lived
        /// sender may be gone a moment later); 0 when it could not be.
        public let session: pid_t
        public let uid: uid_t
        public let bytes: [UInt8]
        /// `bytes` parsed, once, where they were read (the receiver needs it for the backlog
        /// and the barrier; the consumer for the message).
        public let message: Result<NotifyMessage, NotifyMessage.ParseError>
        public let passedDescriptors: Int
        /// BARRIER=1's descriptor, held until the message is handled (`NotifyBarrier`); nil for
        /// any other message, or when `barriers` is spent (then answered at once).
        public let barrier: NotifyBarrier?
        public let truncated: Bool
        /// Every datagram read up to this number (see `flush`) has been handed out on
        /// `datagrams` with or before this one, or dropped. Datagrams are numbered 1, 2, 3, … as
        /// they are read, but different senders are served in turn, so this is a high-water
        /// mark, not the datagram's own number: it never decreases and may repeat.
        public internal(set) var sequence: UInt64
    }

    public enum ReceiverError: Error, CustomStringConvertible {
        case system(String, Int32)
        /// The path is no Unix socket address (too long, say).
        case address(UnixSocketAddress.AddressError)
        public var description: String {
            switch self {
            case .system(let what, let code): "\(what): \(String(cString: strerror(code)))"
            case .address(let error): error.description
            }
        }
    }

    public let path: String
    /// Taken one at a time (pulled, so what waits stays in the backlog until it is taken).
    public let datagrams: AsyncStream<Datagram>
    /// A task that prefers the receiver as its executor (`withTaskExecutorPreference`) runs on
    /// its thread, between passes: a consumer of `next()` is then resumed where the datagram was
    /// read, with no pool thread woken in between (curtaind's app supervisor: READY=1 → the
    /// frame clock is one hand-off; issue 18). Its work delays the next pass, as a service
    /// manager's does: keep it short.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let accepted = jobs.state.withLock { s in
            guard !s.ended else { return false }
            s.queue.append(job)
            if s.polling { wakeThread(s) }
            s.polling = false
            return true
        }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// The next datagram, or nil once the receiver has stopped and nothing waits; as
    /// `datagrams`, but resumed on the caller's executor (an actor consuming them is not
    /// woken through the pool first). One consumer at a time, as for `datagrams`.
    public nonisolated(nonsending) func next() async -> Datagram? { await pending.next() }
    private let fd: Int32
    /// The write end of a pipe that wakes the thread to stop.
    private let wake: Int32
    private let stopped = StopFlag()

    final class StopFlag: Sendable {
        let value = Atomic(false)
    }

    /// Set while the thread takes datagrams off the socket and queues them (a pass): one it
    /// has taken may not be queued yet.
    final class Reading: Sendable {
        let value = Atomic(false)
    }
    private let reading = Reading()

    /// Jobs of tasks that prefer this receiver as their executor (see `enqueue`), run by the
    /// thread between its passes over the socket; once it has ended, they go to the pool.
    final class Jobs: Sendable {
        struct State {
            var queue: [UnownedJob] = []
            /// The thread waits in poll(2): a job must wake it.
            var polling = false
            var ended = false
            /// `stop` closed the pipe's write end.
            var wakeClosed = false
        }
        let state = Mutex(State())
    }
    private let jobs = Jobs()

    /// Callers of `flush` waiting for the thread's next pass over the socket.
    final class Flushes: Sendable {
        let waiting = Mutex<[CheckedContinuation<UInt64, Never>]>([])
    }
    private let flushes = Flushes()

    /// Datagrams read but not yet taken, and the consumers waiting for one.
    final class Pending: Sendable {
        struct State {
            var backlog = NotifyBacklog<Datagram>(
                perSender: NotifyReceiver.backlogPerSender,
                total: NotifyReceiver.backlog
            )
            var waiting: [(id: Int, continuation: CheckedContinuation<Datagram?, Never>)] = []
            var nextID = 0
            var finished = false

            mutating func take() -> Datagram? {
                guard let (datagram, _, through) = backlog.next() else { return nil }
                var numbered = datagram
                numbered.sequence = through
                return numbered
            }
        }
        let state = Mutex(State())

        /// Runs on the caller's executor (nonsending): a consumer actor is resumed on its own
        /// executor straight from the receiving thread, with no stop on the concurrency pool
        /// in between (issue 18: READY=1 → `revealing`).
        nonisolated(nonsending) func next() async -> Datagram? {
            let id = state.withLock { state in
                defer { state.nextID += 1 }
                return state.nextID
            }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let answer: Datagram?? = state.withLock { state in
                        if let datagram = state.take() { return .some(datagram) }
                        if state.finished || Task.isCancelled { return .some(nil) }
                        state.waiting.append((id, continuation))
                        return nil
                    }
                    if let answer { continuation.resume(returning: answer) }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
                }
                waiter?.resume(returning: nil)
            }
        }
    }
    private let pending = Pending()

    /// Datagrams read but not yet taken, from all senders together (a flood must not grow the
    /// daemon without bound). Beyond it, the sender with the most queued loses one.
    public static let backlog = 1024
    /// Datagrams read but not yet taken from one sender (by the kernel's pid). Beyond it, the
    /// sender loses its oldest STATUS-only one (or, if it has none, its oldest): an app
    /// flooding itself keeps its latest status and its READY=1.
    public static let backlogPerSender = 64
    /// BARRIER=1 descriptors held at once, for all senders (more are answered as read): 64
    /// unless the receiver was made with another `barrierLimit`.
    public let barriers: NotifyBarrier.Budget

    /// Datagrams read in one pass before `flush` callers are answered: more than the socket
    /// can hold (its queue length, net.unix.max_dgram_qlen when it was created, plus senders
    /// racing past that check), so everything queued when `flush` was called has been read —
    /// and a flood that refills the socket as fast as it is read cannot hold `flush` back.
    static func readsPerPass(queueLength: Int) -> Int { max(64, 4 * (queueLength + 1)) }

    /// net.unix.max_dgram_qlen: what a new datagram socket may queue (512 if unreadable).
    static func datagramQueueLength() -> Int {
        var buffer = [UInt8](repeating: 0, count: 32)
        let fd = open("/proc/sys/net/unix/max_dgram_qlen", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 512 }
        defer { close(fd) }
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return 512 }
        return Int(
            String(decoding: buffer[..<n].filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }, as: UTF8.self)
        ) ?? 512
    }

    /// `logger` gets the drops (throttled: see `LogThrottle`).
    public init(
        path: String,
        logger: Logger = Logger(label: "curtaind.notify"),
        barrierLimit: Int = 64
    ) throws(ReceiverError) {
        self.path = path
        barriers = NotifyBarrier.Budget(limit: barrierLimit)
        // Checked before anything is created (or the old socket file removed).
        let address: UnixSocketAddress
        do { address = try UnixSocketAddress(path) } catch { throw .address(error) }
        let passLimit = Self.readsPerPass(queueLength: Self.datagramQueueLength())  // read before the socket takes it
        let fd = socket(
            AF_UNIX,
            Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            0
        )
        guard fd >= 0 else { throw .system("socket", errno) }
        self.fd = fd
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            close(fd)
            throw .system("pipe", code)
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = pipeEnds[1]
        let wakeRead = pipeEnds[0]
        unlink(path)
        guard address.bind(fd) == 0 else {
            let code = errno
            close(fd)
            throw .system("bind \(path)", code)
        }
        guard curtain_notify_passcred(fd) == 0 else {
            let code = errno
            close(fd)
            throw .system("SO_PASSCRED", code)
        }
        datagrams = AsyncStream(unfolding: { [pending] in await pending.next() })
        _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
        let executor = asUnownedTaskExecutor()
        let started = DetachedThread.start(name: "notify-receiver") {
            [reading, stopped, flushes, pending, jobs, barriers] in
            Self.drain(
                fd: fd,
                wake: wakeRead,
                passLimit: passLimit,
                reading: reading,
                stopped: stopped,
                flushes: flushes,
                pending: pending,
                barriers: barriers,
                jobs: (jobs, executor),
                logger: logger
            )
        }
        guard started else {
            close(fd)
            close(wakeRead)
            close(wake)
            throw .system("cannot start the notify thread", EAGAIN)
        }
    }

    deinit {
        stop()
    }

    /// Stops the thread; the stream finishes.
    public func stop() {
        guard !stopped.value.exchange(true, ordering: .acquiringAndReleasing) else { return }
        jobs.state.withLock { s in
            wakeThread(s)
            close(wake)
            s.wakeClosed = true
        }
    }

    /// Wakes the thread from poll(2). Called with `jobs`' lock held (`state` is its contents):
    /// `stop` closes the pipe under that lock, so no write reaches a closed descriptor.
    private func wakeThread(_ state: borrowing Jobs.State) {
        guard !state.wakeClosed else { return }
        var byte: UInt8 = 1
        _ = write(wake, &byte, 1)
    }

    /// Returns once every datagram queued on the socket when it was called has been read (and
    /// queued for `datagrams` or dropped), with the number of the last one read so far: once
    /// a datagram with `sequence` at least that has been taken, so has every one of them that
    /// was not dropped. A service
    /// manager takes what a process sent before it takes the process's exit (systemd drains
    /// its notify socket before it handles SIGCHLD); this is how curtaind does the same.
    public func flush() async -> UInt64 {
        await withCheckedContinuation { continuation in
            // Under the lock `stop` closes the pipe under and the thread takes its last flushes
            // under: a flush racing them neither writes to a closed descriptor nor waits forever.
            let queued = jobs.state.withLock { s in
                guard !s.wakeClosed, !s.ended else { return false }
                flushes.waiting.withLock { $0.append(continuation) }
                wakeThread(s)
                return true
            }
            if !queued { continuation.resume(returning: 0) }
        }
    }

    /// What `flush` would answer, without waking the thread, when nothing is left for it to
    /// read: nil if a datagram waits on the socket or the thread holds one it has not queued
    /// yet (then call `flush`). After an app's exit this is almost always the answer: its
    /// messages were read long before, and a flush was two thread wake-ups per exit (issue 18).
    public func readThroughIfIdle() -> UInt64? {
        // `stop` and the thread's end close the socket under this lock, after setting these.
        let empty = jobs.state.withLock { s in
            !s.wakeClosed && !s.ended && curtain_notify_queued(fd) == 0
        }
        // Every datagram sent before the socket was found empty has been taken off it; outside
        // a pass (the flag is set before its first read, cleared after its last is queued)
        // every one taken is queued. In a pass: nil, and a flush waits for its end.
        guard empty, !reading.value.load(ordering: .sequentiallyConsistent) else { return nil }
        return pending.state.withLock { $0.backlog.added }
    }

    private static func drain(
        fd: Int32,
        wake: Int32,
        passLimit: Int,
        reading: Reading,
        stopped: StopFlag,
        flushes: Flushes,
        pending: Pending,
        barriers: NotifyBarrier.Budget,
        jobs: (queue: Jobs, executor: UnownedTaskExecutor),
        logger: Logger
    ) {
        /// Runs the jobs waiting, and those they enqueue, until none is left; then marks the
        /// thread as about to poll (a job enqueued from then on wakes it).
        func runJobs() {
            while let batch = jobs.queue.state.withLock({ s -> [UnownedJob]? in
                if s.queue.isEmpty {
                    s.polling = true
                    return nil
                }
                defer { s.queue.removeAll(keepingCapacity: true) }
                return s.queue
            }) {
                for job in batch { job.runSynchronously(on: jobs.executor) }
            }
        }
        var buffer = [UInt8](repeating: 0, count: NotifyMessage.maximumSize + 1)
        var pollers = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        var scratch = [UInt8](repeating: 0, count: 64)
        var log = ThrottledSenderLog()
        while !stopped.value.load(ordering: .acquiring) {
            // Wakes for the summary of suppressed drop lines when one is due.
            let timeout: Int32 =
                log.throttle.nextDue.map { due -> Int32 in
                    let left = ContinuousClock.now.duration(to: due).components
                    return Int32(clamping: max(0, left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000 + 1))
                } ?? -1
            runJobs()
            guard poll(&pollers, 2, timeout) >= 0 || errno == EINTR else { break }
            jobs.queue.state.withLock { $0.polling = false }
            while read(wake, &scratch, scratch.count) > 0 {}
            // Requests made before this pass are answered after it.
            let waiting = flushes.waiting.withLock { w in
                defer { w = [] }
                return w
            }
            reading.value.store(true, ordering: .sequentiallyConsistent)
            for _ in 0..<passLimit {
                var meta = curtain_notify_meta()
                let n = buffer.withUnsafeMutableBytes { curtain_notify_receive(fd, $0.baseAddress, $0.count, &meta) }
                if n < 0 { break }
                let session = meta.pid > 0 ? max(0, getsid(meta.pid)) : 0
                let truncated = meta.truncated != 0 || n > NotifyMessage.maximumSize
                let bytes = Array(buffer[0..<n])
                let message = Result { () throws(NotifyMessage.ParseError) in try NotifyMessage(parsing: bytes) }
                let parsed = try? message.get()
                var barrier: NotifyBarrier?
                if meta.first_fd >= 0 {
                    // Only a barrier's descriptor is kept: any other is closed now.
                    if parsed?.barrier == true {
                        barrier = NotifyBarrier.hold(meta.first_fd, from: barriers)
                    } else {
                        close(meta.first_fd)
                    }
                }
                let datagram = Datagram(
                    pid: meta.pid,
                    session: session,
                    uid: meta.uid,
                    bytes: bytes,
                    message: message,
                    passedDescriptors: Int(meta.fds),
                    barrier: barrier,
                    truncated: truncated,
                    sequence: 0
                )
                let changesState = parsed?.changesState ?? false
                typealias HandOut = (consumer: CheckedContinuation<Datagram?, Never>, datagram: Datagram)
                let (dropped, handOut) = pending.state.withLock {
                    state -> (NotifyBacklog<Datagram>.Dropped?, HandOut?) in
                    let dropped = state.backlog.add(datagram, from: meta.pid, changesState: changesState)
                    guard !state.waiting.isEmpty, let next = state.take() else { return (dropped, nil) }
                    return (dropped, (state.waiting.removeFirst().continuation, next))
                }
                if let handOut { handOut.consumer.resume(returning: handOut.datagram) }
                if let dropped {
                    log.warning(
                        logger,
                        "notify message dropped: too many waiting (\(backlogPerSender) from one sender, \(backlog) in all)",
                        pid: dropped.sender,
                        metadata: ["curtain_notify_changes_state": "\(dropped.changedState)"],
                        at: .now
                    )
                }
            }
            let read = pending.state.withLock { $0.backlog.added }
            reading.value.store(false, ordering: .sequentiallyConsistent)
            waiting.forEach { $0.resume(returning: read) }
            log.flush(logger, at: .now)
        }
        let (read, consumers) = pending.state.withLock { state in
            state.finished = true
            defer { state.waiting = [] }
            return (state.backlog.added, state.waiting.map(\.continuation))
        }
        // What is still queued is taken after this; a consumer waits only when nothing is.
        consumers.forEach { $0.resume(returning: nil) }
        log.flush(logger, at: nil)
        // Jobs that came too late for the thread go to the pool, as every later one will; the
        // last flushes are taken under the same lock (see `flush`).
        let (left, lastFlushes) = jobs.queue.state.withLock { s in
            s.ended = true
            defer { s.queue = [] }
            return (
                s.queue,
                flushes.waiting.withLock { w in
                    defer { w = [] }
                    return w
                }
            )
        }
        lastFlushes.forEach { $0.resume(returning: read) }
        close(fd)
        close(wake)
        for job in left { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}
