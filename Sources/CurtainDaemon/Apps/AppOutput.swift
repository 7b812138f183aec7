import Logging
import Systemd
import Threads

#if canImport(Glibc)
import Glibc
#endif

/// An app's standard output and error, line by line, into the journal under the app's own
/// identifier with CURTAIN_APP= and CURTAIN_LAUNCH_ID=. Read on a thread of its own until
/// the last holder of the pipe (the app or a grandchild) closes it.
enum AppOutput {
    static let maximumLine = 16 * 1024

    static func forward(from fd: Int32, logger: Logger) {
        let started = DetachedThread.start(name: "app-output") {
            defer { close(fd) }
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending += buffer[0..<n]
                while let newline = pending.firstIndex(of: 10) {
                    emit(pending[..<newline], logger)
                    pending.removeSubrange(...newline)
                }
                // A line without an end in sight is cut, not grown without bound.
                if pending.count > maximumLine {
                    emit(pending[...], logger)
                    pending.removeAll()
                }
            }
            if !pending.isEmpty { emit(pending[...], logger) }
        }
        // No thread for it (resources exhausted): the output is dropped, not read inline.
        if !started { close(fd) }
    }

    private static func emit(_ line: ArraySlice<UInt8>, _ logger: Logger) {
        logger.info("\(String(decoding: line, as: UTF8.self))")
    }
}
