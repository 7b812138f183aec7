import CurtainCore

#if canImport(Glibc)
import Glibc
#endif

/// Where the scenes Curtain ships are (docs/scene.md): `$CURTAIN_SCENES`, else
/// `share/curtain/scenes` under the running binary's prefix (`/usr/bin/curtaind` →
/// `/usr/share/curtain/scenes`), else `scenes/` of the source tree the binary was built in
/// (a binary in `.build/debug`). One lookup for curtaind (GetScene) and `curtainctl render`.
public enum SceneLocator {
    /// The shipped scene of a transition: the preset's own (`Presets.scenes`), else seed 000's.
    public static func relativePath(forTransition name: String) -> String {
        Presets.scenes[name] ?? defaultScene
    }

    public static let defaultScene = "yula/yula.scene.json"

    /// The shipped scene `relative` (e.g. "yula/yula.scene.json") as an absolute path, or nil
    /// when it is installed nowhere. `environment` and `executable` default to the process's
    /// own (tests pass theirs).
    public static func shipped(
        _ relative: String,
        environment: String? = currentEnvironment(),
        executable: String? = currentExecutable()
    ) -> String? {
        if let directory = environment, !directory.isEmpty { return absolute(directory + "/" + relative) }
        guard var directory = executable else { return nil }
        while let slash = directory.lastIndex(of: "/"), !directory.isEmpty {
            directory = String(directory[..<slash])
            for candidate in [directory + "/share/curtain/scenes/" + relative, directory + "/scenes/" + relative]
            where access(candidate, F_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    public static func currentEnvironment() -> String? {
        getenv("CURTAIN_SCENES").map { String(cString: $0) }
    }

    /// The running binary (/proc/self/exe), or nil when it cannot be read.
    public static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute against the working directory (renderers on the same host may run
    /// elsewhere), without resolving links.
    public static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(cString: buffer)
        return (cwd == "/" ? "" : cwd) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// `path` as written in the configuration file `file`: absolute, or relative to the
    /// file's directory.
    public static func resolve(_ path: String, relativeTo file: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let directory = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        return absolute((directory.isEmpty ? "" : directory + "/") + path)
    }
}
