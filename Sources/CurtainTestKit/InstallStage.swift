import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `make install DESTDIR=STAGE PREFIX=/usr CONFIG=debug` with the products the tests already
/// run from: the Makefile stays the one description of the installed layout (units rewritten
/// for BINDIR, sysusers, tmpfiles, catalog, configuration), and nothing is built again — a
/// `swift build` inside `swift test` would wait on the lock the running `swift test` holds.
/// SWIFT points at a stand-in that answers `--show-bin-path` with a directory of links to the
/// built products and builds nothing; man pages are not generated (a no-op generate-manual).
public enum InstallStage {
    /// The executables `make install` copies (BINARIES and the curtainctl helpers).
    public static let products = [
        "curtaind", "curtainctl", "curtain-demo-app", "curtain-web", "curtainctl-config", "curtainctl-render",
        "curtain-overlay",
    ]

    public enum Failure: Error, CustomStringConvertible {
        case missingProduct(String)
        case makeFailed(Int32, String)
        public var description: String {
            switch self {
            case .missingProduct(let path): return "\(path) is not built (swift build first)"
            case .makeFailed(let status, let output): return "make install failed (exit \(status)):\n\(output)"
            }
        }
    }

    /// Stages the installation into a new temporary directory and returns it (`work`, beside
    /// it, holds the stand-ins; remove both with `remove(_:)`).
    public static func make() async throws -> URL {
        let base = TestEnvironment.temporaryDirectory("curtain-stage")
        let bin = base.appendingPathComponent("bin")
        let stage = base.appendingPathComponent("root")
        let files = FileManager.default
        try files.createDirectory(at: bin, withIntermediateDirectories: true)
        for product in products {
            let path = TestEnvironment.product(product)
            guard TestEnvironment.isExecutable(path) else { throw Failure.missingProduct(path) }
            try files.createSymbolicLink(atPath: bin.appendingPathComponent(product).path, withDestinationPath: path)
        }
        try executable(
            bin.appendingPathComponent("generate-manual"),
            "#!/bin/sh\n# Stand-in: the tests need no man pages.\nexit 0\n"
        )
        let swift = base.appendingPathComponent("swift")
        try executable(
            swift,
            """
            #!/bin/sh
            # Stand-in for swift in make install: the products are built; name where they are.
            for argument; do [ "$argument" = --show-bin-path ] && echo '\(bin.path)'; done
            exit 0

            """
        )
        let (status, stdout, stderr) = try await TestProcess.run(
            "/usr/bin/make",
            [
                "-C", TestEnvironment.repository.path, "--no-print-directory", "install",
                "DESTDIR=\(stage.path)", "PREFIX=/usr", "CONFIG=debug", "SWIFT=\(swift.path)",
            ],
            // Not the test's own environment: a parent make's MAKEFLAGS (its jobserver) must not leak in.
            environment: [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": NSHomeDirectory(),
            ],
            inherit: false,
            within: 120
        )
        guard status == 0 else {
            remove(stage)
            throw Failure.makeFailed(status, stdout + stderr)
        }
        return stage
    }

    /// Removes a stage made by `make()` and its stand-ins.
    public static func remove(_ stage: URL) {
        try? FileManager.default.removeItem(at: stage.deletingLastPathComponent())
    }

    private static func executable(_ url: URL, _ text: String) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
        chmod(url.path, 0o755)
    }
}
