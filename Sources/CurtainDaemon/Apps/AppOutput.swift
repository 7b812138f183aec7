import CNotify
import Logging
import Synchronization
import Systemd
import Threads

#if canImport(Glibc)
import Glibc
#endif

/// The apps' standard output and error, line by line, into the journal under each app's own
/// identifier with CURTAIN_APP= and CURTAIN_LAUNCH_ID=. One thread reads every app's pipe
/// (epoll), each until the last holder of its write end (the app or a grandchild) closes it.
///
/// Each app had a reader thread of its own before: made on the supervisor's actor at every
/// spawn, while the app was starting, and ended at its exit (issue 18: in `make bench`'s
/// scenario 6, a thread made and ended per launch). The thread starts with the first app and
/// stays (one thread, one epoll descriptor), as `ProcessExits`' does.
final class AppOutput: Sendable {
    static let maximumLine = 16 * 1024

    static let shared = AppOutput()

    /// One pipe's line not ended yet, and where its lines go.
    private struct Reader {
        var pending: [UInt8] = []
        let logger: Logger
    }

    private struct State {
        var epoll: Int32 = -1
        var readers: [Int32: Reader] = [:]
    }

    private let state = Mutex(State())

    /// Forwards what `fd` (a pipe's read end, this reader's from now on) carries until its
    /// last writer closes it. Without a thread or an epoll to take it (resources exhausted),
    /// the output is dropped — never read inline, on the caller's thread.
    static func forward(from fd: Int32, logger: Logger) { shared.add(fd, logger: logger) }

    private func add(_ fd: Int32, logger: Logger) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let added = state.withLock { s -> Bool in
            if s.epoll < 0 {
                guard let epoll = EpollThread.start(name: "app-output", serve: { [self] in serve($0) }) else {
                    return false
                }
                s.epoll = epoll
            }
            // Registered first: the thread takes it out of `readers` only once epoll reports it.
            s.readers[fd] = Reader(logger: logger)
            guard curtain_epoll_add(s.epoll, fd) == 0 else {
                s.readers[fd] = nil
                return false
            }
            return true
        }
        if !added { close(fd) }
    }

    private func serve(_ epoll: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let fd = curtain_epoll_wait_one(epoll)
            guard fd >= 0 else { continue }  // EINTR
            // Out of the table while it is read: its lines are logged without the lock held.
            guard var reader = state.withLock({ $0.readers.removeValue(forKey: fd) }) else { continue }
            var ended = false
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    Self.take(buffer[0..<n], into: &reader)
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                // Nothing more for now; or the end (0), or an error: the pipe is done.
                ended = !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                break
            }
            if ended {
                if !reader.pending.isEmpty { Self.emit(reader.pending[...], reader.logger) }
                state.withLock { _ = curtain_epoll_remove($0.epoll, fd) }
                close(fd)
            } else {
                state.withLock { $0.readers[fd] = reader }
            }
        }
    }

    /// Logs every line `bytes` ends; keeps the rest for the next read. A line without an end
    /// in sight is cut at `maximumLine`, not grown without bound.
    private static func take(_ bytes: ArraySlice<UInt8>, into reader: inout Reader) {
        reader.pending += bytes
        var start = reader.pending.startIndex
        while let newline = reader.pending[start...].firstIndex(of: 10) {
            emit(reader.pending[start..<newline], reader.logger)
            start = newline + 1
        }
        reader.pending.removeSubrange(..<start)
        if reader.pending.count > maximumLine {
            emit(reader.pending[...], reader.logger)
            reader.pending.removeAll()
        }
    }

    private static func emit(_ line: ArraySlice<UInt8>, _ logger: Logger) {
        logger.info("\(String(decoding: line, as: UTF8.self))")
    }
}
