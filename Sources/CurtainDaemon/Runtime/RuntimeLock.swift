#if canImport(Glibc)
import Glibc
#endif

/// "Am I the only curtaind for this runtime directory?" — decided before anything in it is
/// touched (the notify socket, the state file): an exclusive flock on `curtaind.lock`, held
/// for the daemon's life and released by the kernel when it exits, however it exits. The
/// holder's pid is written into the file for the message a second instance gives.
final class RuntimeLock: Sendable {
    static let fileName = "curtaind.lock"

    enum LockError: Error, CustomStringConvertible {
        case held(path: String, pid: pid_t?)
        case system(String, Int32)

        var description: String {
            switch self {
            case .held(let path, let pid):
                "another curtaind (\(pid.map { "pid \($0)" } ?? "pid unknown")) holds \(path); this one exits and changes nothing"
            case .system(let what, let code): "\(what): \(POSIX.errorText(code))"
            }
        }
    }

    let path: String
    let directory: String
    private let fd: Int32

    /// Creates `directory` when missing (0755, as systemd's RuntimeDirectory= would) and
    /// takes the lock in it.
    init(directory: String) throws(LockError) {
        if mkdir(directory, 0o755) != 0, errno != EEXIST {
            // A missing parent too (`--socket /tmp/x/y/c.sock`): create the whole path.
            if let code = POSIX.createDirectories(directory, mode: 0o755) {
                throw .system("cannot create \(directory)", code)
            }
        }
        let path = directory + "/" + Self.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system("cannot open \(path)", errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            defer { close(fd) }
            if code == EWOULDBLOCK { throw .held(path: path, pid: Self.holder(fd)) }
            throw .system("cannot lock \(path)", code)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.path = path
        self.directory = directory
        self.fd = fd
    }

    /// The pid the holder wrote (it may still be writing it: then unknown).
    private static func holder(_ fd: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return pid_t(String(decoding: buffer[..<n], as: UTF8.self).trimmingWhitespace())
    }

    deinit { close(fd) }
}
