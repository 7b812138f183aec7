import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where things are when tests run: the repository, the built executables, the tools that
/// `make setup` installs.
public enum TestEnvironment {
    /// The repository's root (this file is Sources/CurtainTestKit/Products.swift).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// In CI a missing tool is a failure, never a skip.
    public static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    public static let isRoot = getuid() == 0

    /// An executable product of this package, built next to the test bundle.
    public static func product(_ name: String) -> String {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, here.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
        }
        return here.appendingPathComponent(name).path
    }

    public static func isExecutable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// A new private directory under the temporary directory.
    public static func temporaryDirectory(_ prefix: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8))"
        )
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Runs blocking work on a thread of its own and awaits its result, so a blocking wait never
/// occupies the concurrency pool.
public func offload<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
