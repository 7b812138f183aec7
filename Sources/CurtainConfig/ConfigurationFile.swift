#if canImport(Glibc)
import Glibc
#endif

extension ConfigurationHolder {
    /// The configuration file at `path`, read: its text, or nil when there is no file there
    /// and none was asked for (`explicit` false), so the built-in defaults apply. A file that
    /// is there but cannot be read, or an explicit path without one, is an error.
    public static func read(_ path: String, explicit: Bool) throws(ConfigurationErrors) -> String? {
        if let text = readText(path) { return text }
        guard explicit || access(path, F_OK) == 0 else { return nil }
        throw ConfigurationErrors(errors: [
            ConfigurationError(file: path, line: 1, column: 1, keyPath: "", message: "cannot be read")
        ])
    }

    /// The file's text when it can be read whole as UTF-8 (invalid UTF-8 is an error, as the
    /// strict parser would find it anyway); nil otherwise. On libc, not Foundation: curtaind
    /// does not link Foundation (BENCHMARKS.md, scenario 5).
    static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The configuration a daemon starts with: the file at `path`, or the built-in defaults
    /// when there is none (see `read`).
    public static func load(_ path: String, explicit: Bool) throws(ConfigurationErrors) -> Configuration {
        guard let text = try read(path, explicit: explicit) else { return Configuration() }
        return try Configuration(toml: text, file: path)
    }

    /// Reads `path` again and adopts it, all or nothing (see `adopt`): SIGHUP's and
    /// io.curtain.Launcher.Reload's path. Returns the configuration now running.
    @discardableResult
    public mutating func reload(
        path: String,
        explicit: Bool,
        allowEmpty: Bool = false
    ) throws(ConfigurationErrors) -> Configuration {
        try adopt(try Self.load(path, explicit: explicit), file: path, allowEmpty: allowEmpty)
        return current
    }
}
