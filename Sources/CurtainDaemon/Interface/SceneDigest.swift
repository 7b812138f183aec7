#if canImport(Glibc)
import Glibc
#endif
import CCrypto
import CurtainCore

/// A scene file's bytes hashed for GetScene: renderers reload a scene only when its SHA-256
/// changes. Read on each call (a scene is at most `Scene.Limits.documentSize` bytes), so the
/// hash is always that of the file a renderer would load now.
enum SceneDigest {
    struct Unavailable: Error {
        let reason: String
    }

    /// The SHA-256 of the file at `path` as 64 lowercase hex digits.
    static func sha256(ofFile path: String, limit: Int = Scene.Limits.documentSize) throws(Unavailable) -> String {
        let bytes = try read(path, limit: limit)
        return hex(sha256(bytes))
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest fails only without memory or a provider for SHA-256: libcrypto is broken.
        precondition(ok == 1 && length == 32, "libcrypto's SHA-256 failed")
        return Array(digest[0..<32])
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// At most `limit` bytes of a regular file, or why not.
    private static func read(_ path: String, limit: Int) throws(Unavailable) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw Unavailable(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Unavailable(reason: String(cString: strerror(errno))) }
        // A FIFO or device would block or never end.
        guard info.st_mode & S_IFMT == S_IFREG else { throw Unavailable(reason: "not a regular file") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Unavailable(reason: String(cString: strerror(errno)))
            }
            if n == 0 { return bytes }
            bytes += buffer[0..<n]
            if bytes.count > limit { throw Unavailable(reason: "larger than \(limit) bytes (the scene document limit)") }
        }
    }
}
