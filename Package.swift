// swift-tools-version:6.0
import PackageDescription

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
