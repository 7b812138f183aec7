// swift-tools-version:6.1
import PackageDescription
import class Foundation.ProcessInfo

// Module layout: see ARCHITECTURE.md. CurtainCore is pure (no IO, no clock).
let package = Package(
    name: "Curtain",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CurtainCore", targets: ["CurtainCore"]),
        .library(name: "Varlink", targets: ["Varlink"]),
        .library(name: "VarlinkNIO", targets: ["VarlinkNIO"]),
        .executable(name: "curtainctl", targets: ["curtainctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .target(
            name: "CurtainCore",
            dependencies: ["JSON", .product(name: "RealModule", package: "swift-numerics")]
        ),
        .executableTarget(
            name: "curtainctl",
            dependencies: [
                "CurtainCore",
                "CurtainConfig",
                "JSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libsystemd (Debian's libsystemd-dev, installed by `make setup`).
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .target(name: "Systemd", dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")]),
        // Test kit: logs and notifies from a separate process for Tests/SystemdTests.
        .executableTarget(name: "systemd-probe", dependencies: ["Systemd", .product(name: "Logging", package: "swift-log")]),
        // JSON values, a strict parser and a writer: shared by Varlink and CurtainCore (payloads).
        .target(name: "JSON"),
        .target(name: "Varlink", dependencies: ["JSON"]),
        // The configuration file: TOML read into the core's route table and settings, checked
        // whole, with file:line:column errors. Reads files; no sockets.
        .target(
            name: "CurtainConfig",
            dependencies: ["CurtainCore", "JSON", .product(name: "TOMLKit", package: "TOMLKit")]
        ),
        .target(
            name: "VarlinkNIO",
            dependencies: [
                "Varlink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "varlink-certification", dependencies: ["JSON", "Varlink", "VarlinkNIO"]),
        .testTarget(name: "CurtainCoreTests", dependencies: ["CurtainCore"]),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd"]),
        .testTarget(name: "CurtainConfigTests", dependencies: ["CurtainConfig", "CurtainCore", "JSON"]),
        .testTarget(name: "VarlinkTests", dependencies: ["Varlink", "JSON"]),
        .testTarget(name: "VarlinkNIOTests", dependencies: ["VarlinkNIO", "Varlink", "JSON"]),
        // Runs the built varlink-certification against the official clients and servers.
        .testTarget(name: "CertificationTests"),
        .testTarget(name: "CurtainctlTests", dependencies: ["CurtainCore"]),
    ]
)

// The benchmark harness (package-benchmark) is only resolved and built for `make bench`,
// which sets CURTAIN_BENCHMARKS=1 and uses its own build directory: tests never pay for it.
if ProcessInfo.processInfo.environment["CURTAIN_BENCHMARKS"] != nil {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
    package.targets.append(
        .executableTarget(
            name: "TimelineBenchmarks",
            dependencies: ["CurtainCore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/TimelineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ))
    package.targets.append(
        .executableTarget(
            name: "VarlinkBenchmarks",
            dependencies: ["JSON", "Varlink", "VarlinkNIO", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/VarlinkBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ))
}

// The libFuzzer target (Fuzz/run, `make fuzz`) is only part of the package when CURTAIN_FUZZ
// is set, because it must be built with -sanitize=fuzzer and -parse-as-library.
if ProcessInfo.processInfo.environment["CURTAIN_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "VarlinkFuzz",
            dependencies: ["JSON", "Varlink", "VarlinkNIO", .product(name: "NIOEmbedded", package: "swift-nio")],
            path: "Fuzz/VarlinkFuzz"
        ))
}
