#if canImport(Glibc)
import Glibc
#endif

/// The few file and thread calls the daemon made through Foundation, on libc directly:
/// curtaind does not link Foundation (with ICU it was a third of its memory; BENCHMARKS.md,
/// scenario 5). `Tests/DaemonTests/LinkageTests` fails if it links it again.
enum POSIX {
    /// `strerror(code)` as a String.
    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The whole file at `path`, or nil when it cannot be opened or read.
    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return result }
            result += buffer[0..<n]
        }
    }

    /// Writes `bytes` to a new or truncated file at `path` (mode 0644 before the umask).
    static func writeFile(_ path: String, _ bytes: [UInt8]) -> Int32? {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return errno }
            offset += n
        }
        return nil
    }

    static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// `mkdir -p`: every missing directory of `path` with `mode`; nil on success, else errno.
    @discardableResult
    static func createDirectories(_ path: String, mode: mode_t = 0o755) -> Int32? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, mode) != 0 && errno != EEXIST { return errno }
            prefix += "/"
        }
        return nil
    }

    /// The names in directory `path` (without `.` and `..`), or nil when it cannot be opened.
    static func directoryEntries(_ path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `path`'s directory (`a/b/c` → `a/b`, `c` → ``).
    static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path`'s last component (`a/b/c` → `c`).
    static func baseName(_ path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// This process's whole environment as raw entries ("KEY=value", without the NUL).
    static func environmentEntries() -> [[UInt8]] {
        var entries: [[UInt8]] = []
        var cursor = environ
        while let entry = cursor.pointee {
            entries.append(Array(UnsafeRawBufferPointer(start: entry, count: strlen(entry))))
            cursor += 1
        }
        return entries
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and newlines.
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" { s = s.dropLast() }
        return String(s)
    }
}
