import CurtainCore

#if canImport(Glibc)
import Glibc
#endif

/// A configuration's scene file checked as far as curtaind can without decoding images (it
/// never loads cairo): the document with its limits and masks (`Scene(json:)`, at the
/// configured screen size), and every asset there — a regular file inside the scene's
/// directory, at most `Scene.Limits.assetBytes`. Renderers check the images' contents when
/// they load them (`curtainctl scene check` does all of it).
public enum SceneFileCheck {
    /// The scene document at `path` for a screen, or why not (assets unchecked).
    public static func scene(_ path: String, width: Double, height: Double) -> Result<Scene, SceneError> {
        let bytes: [UInt8]
        switch read(path, limit: Scene.Limits.documentSize) {
        case .success(let b): bytes = b
        case .failure(let message): return .failure(SceneError("", "\(path): \(message)"))
        }
        do {
            return .success(try Scene(json: bytes, parameters: ["screen.width": width, "screen.height": height]))
        } catch {
            // A syntax error's path is line:column already (as `curtainctl scene check` prints it).
            return .failure(SceneError("", "\(path):\(error.path.first?.isNumber == true ? "" : " ")\(error)"))
        }
    }

    /// Why the scene at `path` cannot be used, or nil.
    public static func problem(_ path: String, width: Double, height: Double) -> String? {
        let scene: Scene
        switch Self.scene(path, width: width, height: height) {
        case .success(let s): scene = s
        case .failure(let error): return error.message
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]).isEmpty ? "/" : String(path[..<$0]) } ?? "."
        guard let root = realPath(directory) else { return "\(path): the scene's directory cannot be resolved" }
        for asset in scene.assetPaths {
            let joined = directory + "/" + asset
            guard let resolved = realPath(joined) else {
                return "\(path): asset '\(asset)': no such file (looked for \(joined))"
            }
            guard resolved.hasPrefix(root == "/" ? "/" : root + "/") else {
                return
                    "\(path): asset '\(asset)': resolves to \(resolved), outside the scene's directory \(root) (a symbolic link?)"
            }
            var info = stat()
            guard stat(resolved, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                return "\(path): asset '\(asset)': is not a regular file"
            }
            guard info.st_size <= Scene.Limits.assetBytes else {
                return
                    "\(path): asset '\(asset)': is \(info.st_size) bytes, more than the limit of \(Scene.Limits.assetBytes)"
            }
        }
        return nil
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private enum Read {
        case success([UInt8])
        case failure(String)
    }

    /// At most `limit` bytes of a regular file (a FIFO would block the daemon's reload).
    private static func read(_ path: String, limit: Int) -> Read {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure("cannot be read: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .failure("is not a regular file") }
        guard info.st_size <= limit else {
            return .failure("is \(info.st_size) bytes, more than the limit of \(limit)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { return .failure("cannot be read: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            count += n
        }
        // Grown since fstat: still bounded.
        guard count <= limit else { return .failure("is more than \(limit) bytes") }
        return .success(Array(bytes[0..<count]))
    }
}
