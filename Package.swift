// swift-tools-version:6.1
import PackageDescription

import class Foundation.FileManager
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
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // For the test kit's processes (curtaind spawns its apps with posix_spawn itself: one
        // thread reaping them all, no task per app; BENCHMARKS.md, scenario 6). Without its
        // default SubprocessFoundation trait, as Data outputs are unused.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2", traits: []),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .target(
            name: "CurtainCore",
            dependencies: ["JSON", .product(name: "RealModule", package: "swift-numerics")]
        ),
        .executableTarget(
            name: "curtainctl",
            dependencies: [
                "CArgv",
                "CurtainCore",
                "CurtainctlSupport",
                "JSON",
                "Varlink",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // config check and route explain: a helper that curtainctl executes, so that curtainctl
        // itself starts without the configuration reader's code.
        .executableTarget(
            name: "curtainctl-config",
            dependencies: [
                "CurtainCore", "CurtainConfig", "CurtainctlSupport", "JSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "CurtainctlSupport",
            dependencies: [
                "CurtainCore", "JSON", "UnixSockets", "Varlink",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libsystemd (Debian's libsystemd-dev, installed by `make setup`), for the load
        // generator's app (sd_notify_barrier): curtaind speaks sd_notify and the journal's native
        // protocol itself, and loads sd-bus only for the unit backend.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // The daemon's libc calls Swift cannot make itself: recvmsg with SCM_CREDENTIALS/SCM_RIGHTS
        // for the notify socket (CMSG_* are macros), the journal's native protocol, pidfds, and
        // an app's spawn (posix_spawn's GNU file actions).
        .target(name: "CNotify"),
        // curtainctl's argv for the Swift runtime, without the runtime's /proc/self/maps search.
        .target(name: "CArgv"),
        // systemd's manager over sd-bus for the unit backend (sd-bus's variadic calls in C).
        // libsystemd is loaded when the unit backend first connects (dlopen), so a device that
        // runs no unit app never maps it and the six libraries it needs (BENCHMARKS.md).
        .target(name: "CSystemdBus"),
        // A Unix socket's address (sockaddr_un), checked once: every module that opens a Unix
        // socket by hand builds it here. Only libc, so CurtainCore stays free of IO and
        // curtainctl of Foundation.
        .target(name: "UnixSockets"),
        // A detached, named pthread running a closure (the daemon's receivers, the renderer's bands).
        .target(name: "Threads"),
        .target(
            name: "Systemd",
            dependencies: [
                "CNotify", "Threads", "UnixSockets", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Composition: configuration, Varlink server, systemd integration, lifecycle.
        .target(
            name: "CurtainDaemon",
            dependencies: [
                "CurtainConfig", "Systemd", "CNotify", "CSystemdBus", "Threads", "UnixSockets", "Varlink", "VarlinkNIO",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The Varlink interface files are the source of truth, compiled in as bytes.
            resources: [
                .embedInCode("Interface/io.curtain.Launcher.varlink"), .embedInCode("Interface/io.curtain.App.varlink"),
            ]
        ),
        .executableTarget(
            name: "curtaind",
            // No ArgumentParser: it imports FoundationEssentials on Linux (Sources/curtaind).
            dependencies: ["CurtainDaemon", "CurtainConfig"],
            exclude: ["Link"],
            // Released, the Swift runtime is linked in: its libraries' relocated pages and
            // fault-around are gone, and --gc-sections drops what curtaind does not use (idle
            // RSS −0.9 MiB). Not static as a whole: Debian ships libsystemd only shared. lld's
            // packed relative relocations (glibc ≥ 2.36) replace 1 MiB of .rela.dyn that the
            // loader read at every start, and no symbol is exported (the runtime's link
            // arguments export all, for plug-ins curtaind never loads): −2 MiB idle RSS. The
            // code a daemon runs is laid out together (Link/: curtaind.order from
            // tools/curtaind-order, text.ld), with libstdc++'s few functions linked in
            // (Link/libstdc++.so), so it touches few pages: −5 MiB more, with the Makefile's
            // one section per function (BENCHMARKS.md, "curtaind's memory"). libgcc's unwinder
            // is linked in too (nothing unwinds in curtaind since its main thread stays: −0.1
            // MiB, the shared library's mapping).
            linkerSettings: [
                .unsafeFlags(
                    ["-static-stdlib", "-use-ld=lld", "-Xclang-linker", "-static-libgcc"]
                        + ["-L\(Context.packageDirectory)/Sources/curtaind/Link"]
                        + [
                            "-z", "pack-relative-relocs", "--no-export-dynamic", "--no-warn-symbol-ordering",
                            "--symbol-ordering-file=\(Context.packageDirectory)/Sources/curtaind/Link/curtaind.order",
                            "--script=\(Context.packageDirectory)/Sources/curtaind/Link/text.ld",
                        ].flatMap { ["-Xlinker", $0] },
                    .when(platforms: [.linux], configuration: .release)
                )
            ]
        ),
        // A destination app for demos and tests: sd_notify stages, elements, warm starts.
        .executableTarget(
            name: "curtain-demo-app",
            dependencies: [
                "Systemd", "Varlink", "VarlinkNIO", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Test kit: logs and notifies from a separate process for Tests/SystemdTests.
        .executableTarget(
            name: "systemd-probe",
            dependencies: ["Systemd", "CurtainDaemon", .product(name: "Logging", package: "swift-log")]
        ),
        // JSON values, a strict parser and a writer: shared by Varlink and CurtainCore (payloads).
        .target(name: "JSON"),
        .target(name: "Varlink", dependencies: ["JSON"]),
        // The configuration file: TOML (its own parser, no Foundation) read into the core's
        // route table and settings, checked whole, with file:line:column errors. Reads files; no sockets.
        .target(name: "CurtainConfig", dependencies: ["CurtainCore", "JSON"]),
        .target(
            name: "VarlinkNIO",
            dependencies: [
                "Threads",
                "UnixSockets",
                "Varlink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // make bench's load generator: observers, launches and a ready-at-once app, run as a
        // process apart from curtaind (Benchmarks/run drives it).
        .executableTarget(
            name: "curtain-load",
            dependencies: ["CLoadGenerator", "CSystemd", "CurtainctlSupport", "JSON", "Systemd", "Varlink"],
            path: "Benchmarks/LoadGenerator"
        ),
        .target(name: "CLoadGenerator", path: "Benchmarks/CLoadGenerator"),
        .executableTarget(name: "varlink-certification", dependencies: ["JSON", "Varlink", "VarlinkNIO"]),
        // Test kit shipped beside the library: child processes with bounded waits, a notify
        // socket, raw Varlink calls, where the built products are.
        .target(
            name: "CurtainTestKit",
            dependencies: [
                "UnixSockets",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The scene renderer: cairo, pango and librsvg (Debian's libcairo2-dev, libpango1.0-dev,
        // librsvg2-dev; `make setup` installs them). See docs/scene.md.
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "pangocairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev", "librsvg2-dev"])]
        ),
        // Animated WebP previews (libwebpmux's WebPAnimEncoder; Debian's libwebp-dev).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpmux", providers: [.apt(["libwebp-dev"])]),
        .target(name: "CurtainRender", dependencies: ["CCairo", "CWebP", "CurtainCore", "CPixelLoops", "Threads"]),
        // The blur's innermost loop, built for AVX2 and for the baseline (Sources/CPixelLoops/mix.c).
        .target(name: "CPixelLoops"),
        // `curtainctl render`: run by curtainctl, so that curtainctl itself never loads cairo.
        .executableTarget(
            name: "curtainctl-render",
            dependencies: [
                "CurtainCore", "CurtainConfig", "CurtainRender", "CurtainctlSupport", "JSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // curtain-web: the overlay in a browser (docs/web.md). An HTTP server (NIOHTTP1) for the
        // page (Web/, compiled in), scenes and their assets, text rasterised by CurtainRender
        // (the offline renderer's pixels), and curtaind's Watch relayed as Server-Sent Events.
        .target(
            name: "CurtainWeb",
            dependencies: [
                "CurtainCore", "CurtainRender", "CurtainctlSupport", "JSON", "Varlink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            resources: [
                .embedInCode("Web/index.html"), .embedInCode("Web/web.css"), .embedInCode("Web/overlay.mjs"),
                .embedInCode("Web/painter.mjs"), .embedInCode("Web/app.mjs"),
            ]
        ),
        .executableTarget(
            name: "curtain-web",
            dependencies: [
                "CurtainWeb", "CurtainCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The page's value→canvas mapping (node --test), the server's limits, and the page in
        // chromium-headless-shell through Playwright (browser_test.py), against a real curtaind.
        .testTarget(
            name: "WebTests",
            dependencies: ["CurtainWeb", "CurtainTestKit"],
            exclude: ["js", "browser_test.py"]
        ),
        .testTarget(
            name: "CurtainRenderTests",
            dependencies: ["CurtainRender", "CurtainCore", "CurtainTestKit"],
            exclude: ["Goldens"]
        ),
        .testTarget(name: "CurtainCoreTests", dependencies: ["CurtainCore"]),
        .testTarget(
            name: "SystemdTests",
            dependencies: [
                "Systemd", "UnixSockets", "CurtainDaemon", "CurtainConfig", "CurtainCore", "CurtainTestKit",
            ],
            exclude: ["journal_harness.py"]
        ),
        // Runs the built curtaind under systemd-socket-activate with a notify socket.
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "CNotify", "CurtainDaemon", "CurtainConfig", "CurtainCore", "CurtainTestKit", "Varlink", "VarlinkNIO",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ],
            exclude: ["launch_client.py", "hostile_client.py", "hostile_burst.py", "apps"]
        ),
        .testTarget(
            name: "CurtainConfigTests",
            dependencies: ["CurtainConfig", "CurtainCore", "CurtainTestKit", "JSON"],
            exclude: ["toml_reference.py"]
        ),
        .testTarget(name: "VarlinkTests", dependencies: ["Varlink", "JSON"]),
        .testTarget(name: "UnixSocketsTests", dependencies: ["UnixSockets"]),
        .testTarget(
            name: "VarlinkNIOTests",
            dependencies: [
                "VarlinkNIO", "UnixSockets", "Varlink", "JSON", "CurtainTestKit",
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // Runs the built varlink-certification against the official clients and servers.
        .testTarget(name: "CertificationTests", dependencies: ["CurtainTestKit"]),
        .testTarget(name: "CurtainctlTests", dependencies: ["CurtainCore", "CurtainTestKit"]),
        // curtaind as installed, under a real systemd booted in namespaces (tools/contained-systemd,
        // docs/testing.md). Root only.
        .testTarget(name: "SystemdIntegrationTests", dependencies: ["CurtainDaemon", "CurtainTestKit"]),
    ]
)

// curtain-overlay (docs/overlay.md), the Wayland renderer, and its test window and tests: only
// once `make protocols` has run wayland-scanner (make build and make test do), because SwiftPM
// ignores the C a build-tool plugin generates; a bare `swift build` of a fresh clone builds
// everything else.
if FileManager.default.fileExists(
    atPath: Context.packageDirectory + "/Sources/CWaylandProtocols/include/xdg-shell-client-protocol.h"
) {
    package.targets += [
        // libwayland-client (Debian's libwayland-dev).
        .systemLibrary(name: "CWaylandClient", pkgConfig: "wayland-client", providers: [.apt(["libwayland-dev"])]),
        // wayland-scanner's glue: xdg-shell and the layer-shell subset in protocols/.
        .target(name: "CWaylandProtocols", dependencies: ["CWaylandClient"], exclude: ["protocols"]),
        .executableTarget(
            name: "curtain-overlay",
            dependencies: [
                "CWaylandClient", "CWaylandProtocols", "CurtainCore", "CurtainRender", "CurtainctlSupport", "JSON",
                "Varlink",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A stand-in app for the overlay's tests: a window of one colour that prints its clicks.
        .executableTarget(
            name: "curtain-test-window",
            dependencies: ["CWaylandClient", "CWaylandProtocols", "UnixSockets"]
        ),
        // Headless sway and weston, grim screenshots, a real curtaind (docs/overlay.md).
        .testTarget(name: "OverlayTests", dependencies: ["CurtainRender", "CurtainTestKit"]),
    ]
}

// The benchmark harness (package-benchmark) is only resolved and built for `make bench`,
// which sets CURTAIN_BENCHMARKS=1 and uses its own build directory: tests never pay for it.
if ProcessInfo.processInfo.environment["CURTAIN_BENCHMARKS"] != nil {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"])
    )
    package.targets.append(
        .executableTarget(
            name: "TimelineBenchmarks",
            dependencies: ["CurtainCore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/TimelineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
    package.targets.append(
        .executableTarget(
            name: "VarlinkBenchmarks",
            dependencies: ["JSON", "Varlink", "VarlinkNIO", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/VarlinkBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
    package.targets.append(
        .executableTarget(
            name: "RenderBenchmarks",
            dependencies: ["CurtainCore", "CurtainRender", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/RenderBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
}

// The libFuzzer targets (Fuzz/run, `make fuzz`) are only part of the package when CURTAIN_FUZZ
// is set, because they must be built with -sanitize=fuzzer and -parse-as-library.
// VarlinkFuzz: the parsers facing untrusted bytes. LauncherFuzz: curtaind's real
// io.curtain.Launcher and io.curtain.App bindings, given typed calls with hostile values.
if ProcessInfo.processInfo.environment["CURTAIN_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "VarlinkFuzz",
            dependencies: ["JSON", "Varlink", "VarlinkNIO", .product(name: "NIOEmbedded", package: "swift-nio")],
            path: "Fuzz/VarlinkFuzz"
        )
    )
    package.targets.append(
        .executableTarget(
            name: "LauncherFuzz",
            dependencies: ["CurtainConfig", "CurtainDaemon", "JSON", "Varlink"],
            path: "Fuzz/LauncherFuzz"
        )
    )
}
