import Foundation

extension ConfigurationHolder {
    /// The configuration file at `path`, read: its text, or nil when there is no file there
    /// and none was asked for (`explicit` false), so the built-in defaults apply. A file that
    /// is there but cannot be read, or an explicit path without one, is an error.
    public static func read(_ path: String, explicit: Bool) throws(ConfigurationErrors) -> String? {
        if let text = try? String(contentsOfFile: path, encoding: .utf8) { return text }
        guard explicit || FileManager.default.fileExists(atPath: path) else { return nil }
        throw ConfigurationErrors(errors: [ConfigurationError(file: path, line: 1, column: 1, keyPath: "", message: "cannot be read")])
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
    public mutating func reload(path: String, explicit: Bool, allowEmpty: Bool = false) throws(ConfigurationErrors) -> Configuration {
        try adopt(try Self.load(path, explicit: explicit), file: path, allowEmpty: allowEmpty)
        return current
    }
}
