import CNotify
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The service-manager side of sd_notify: a datagram socket that apps send to, with the
/// kernel's word on who sent each datagram (SO_PASSCRED). A thread of its own drains it
/// continuously — the kernel queues only `net.unix.max_dgram_qlen` datagrams (10 here) and a
/// sender blocks when they are full — and closes every passed descriptor at once, which is
/// what a BARRIER=1 sender waits for.
public final class NotifyReceiver: Sendable {
    public struct Datagram: Sendable {
        public let pid: pid_t
        /// The sender's session, looked up the moment the datagram was read (a short-lived
        /// sender may be gone a moment later); 0 when it could not be.
        public let session: pid_t
        public let uid: uid_t
        public let bytes: [UInt8]
        public let passedDescriptors: Int
        public let truncated: Bool
        /// 1, 2, 3, … in the order the datagrams were read (and queued on `datagrams`).
        public let sequence: UInt64
    }

    public enum ReceiverError: Error, CustomStringConvertible {
        case system(String, Int32)
        public var description: String {
            switch self {
            case .system(let what, let code): "\(what): \(String(cString: strerror(code)))"
            }
        }
    }

    public let path: String
    public let datagrams: AsyncStream<Datagram>
    private let fd: Int32
    /// The write end of a pipe that wakes the thread to stop.
    private let wake: Int32
    private let stopped = StopFlag()

    final class StopFlag: Sendable {
        let value = Atomic(false)
    }

    /// Callers of `flush` waiting for the thread's next pass over the socket.
    final class Flushes: Sendable {
        let waiting = Mutex<[CheckedContinuation<UInt64, Never>]>([])
    }
    private let flushes = Flushes()

    /// Datagrams received but not yet taken; beyond this the oldest are kept and new ones
    /// dropped (a flood from one app must not grow the daemon without bound).
    public static let backlog = 1024

    public init(path: String) throws(ReceiverError) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        self.fd = fd
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { let code = errno; close(fd); throw .system("pipe", code) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = pipeEnds[1]
        let wakeRead = pipeEnds[0]
        unlink(path)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { close(fd); throw .system(path, ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard bound == 0 else { let code = errno; close(fd); throw .system("bind \(path)", code) }
        guard curtain_notify_passcred(fd) == 0 else { let code = errno; close(fd); throw .system("SO_PASSCRED", code) }
        let (stream, continuation) = AsyncStream.makeStream(of: Datagram.self, bufferingPolicy: .bufferingOldest(Self.backlog))
        datagrams = stream
        _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
        let thread = Thread { [stopped, flushes] in
            Self.drain(fd: fd, wake: wakeRead, stopped: stopped, flushes: flushes, continuation: continuation)
        }
        thread.name = "notify-receiver"
        thread.start()
    }

    deinit {
        stop()
    }

    /// Stops the thread; the stream finishes.
    public func stop() {
        guard !stopped.value.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt8 = 1
        _ = write(wake, &one, 1)
        close(wake)
    }

    /// Returns once every datagram queued on the socket when it was called has been read and
    /// queued on `datagrams`, with the sequence number of the last one read so far. A service
    /// manager takes what a process sent before it takes the process's exit (systemd drains
    /// its notify socket before it handles SIGCHLD); this is how curtaind does the same.
    public func flush() async -> UInt64 {
        guard !stopped.value.load(ordering: .acquiring) else { return 0 }
        return await withCheckedContinuation { continuation in
            flushes.waiting.withLock { $0.append(continuation) }
            var one: UInt8 = 2
            _ = write(wake, &one, 1)
        }
    }

    private static func drain(fd: Int32, wake: Int32, stopped: StopFlag, flushes: Flushes, continuation: AsyncStream<Datagram>.Continuation) {
        var buffer = [UInt8](repeating: 0, count: NotifyMessage.maximumSize + 1)
        var pollers = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        var sequence: UInt64 = 0
        var scratch = [UInt8](repeating: 0, count: 64)
        while !stopped.value.load(ordering: .acquiring) {
            guard poll(&pollers, 2, -1) >= 0 || errno == EINTR else { break }
            while read(wake, &scratch, scratch.count) > 0 {}
            // Requests made before this pass are answered after it.
            let waiting = flushes.waiting.withLock { w in defer { w = [] }; return w }
            while true {
                var meta = curtain_notify_meta()
                let n = buffer.withUnsafeMutableBytes { curtain_notify_receive(fd, $0.baseAddress, $0.count, &meta) }
                if n < 0 { break }
                let session = meta.pid > 0 ? max(0, getsid(meta.pid)) : 0
                let datagram = Datagram(pid: meta.pid, session: session, uid: meta.uid, bytes: Array(buffer[0..<n]),
                                        passedDescriptors: Int(meta.fds), truncated: meta.truncated != 0 || n > NotifyMessage.maximumSize,
                                        sequence: sequence + 1)
                // Numbered only when queued: a dropped one leaves no gap to wait for.
                if case .enqueued = continuation.yield(datagram) { sequence += 1 }
            }
            waiting.forEach { $0.resume(returning: sequence) }
        }
        flushes.waiting.withLock { w in defer { w = [] }; return w }.forEach { $0.resume(returning: sequence) }
        continuation.finish()
        close(fd)
        close(wake)
    }
}
