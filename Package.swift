// swift-tools-version:6.1
import PackageDescription
import class Foundation.ProcessInfo

// Module layout: see ARCHITECTURE.md. CurtainCore is pure (no IO, no clock).
let package = Package(
    name: "Curtain",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CurtainCore", targets: ["CurtainCore"]),
        .executable(name: "curtainctl", targets: ["curtainctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "CurtainCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")]
        ),
        .executableTarget(
            name: "curtainctl",
            dependencies: [
                "CurtainCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "CurtainCoreTests", dependencies: ["CurtainCore"]),
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
}
