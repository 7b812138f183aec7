import Benchmark
import CurtainCore
import CurtainRender

#if canImport(Glibc)
import Glibc
#endif

/// One 1920×1080 frame of seed 000 drawn by CurtainRender: what a live overlay pays per frame.
/// Each iteration draws the next frame of the transition at 60 Hz (then it starts over), into a
/// kept frame buffer:
/// - naive: every pixel repainted, without the static-layer cache (the reference);
/// - full: every pixel repainted (`render(values:into:previous: nil)`), static layers cached;
/// - incremental: only the region that changed since the previous frame (`previous:` given).
/// Seed 003 (panel-blur, over its own scene) adds a blurred retained previous screen.
let benchmarks: @Sendable () -> Void = {
    if let profile = getenv("BENCH_FRAME_PROFILE") { Player.profile(String(cString: profile)) }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        scalingFactor: .one,
        // BENCH_QUICK=1 (make bench's smoke run): a fraction of a second each. BENCH_ITERATIONS=N:
        // exactly N frames each, whatever they take (for `perf stat` on a loaded machine: the
        // difference between two counts is the instructions and CPU time of the frames alone).
        maxDuration: fixedIterations != nil
            ? .seconds(3600) : getenv("BENCH_QUICK") != nil ? .milliseconds(300) : .seconds(3),
        maxIterations: fixedIterations ?? 100_000
    )
    for name in ["yula-mask-reveal", "yula-appear", "panel-blur"] {
        for mode in Player.Mode.allCases {
            // Made on the first (warm-up) run: `--filter` builds only the players it runs.
            let player = Lazy { Player(transition: name, mode: mode) }
            Benchmark("render 1920x1080 \(name) \(mode.rawValue)") { benchmark in
                let player = player.value
                for _ in benchmark.scaledIterations { blackHole(player.step()) }
            }
        }
    }
}

final class Lazy<T>: @unchecked Sendable {
    let make: () -> T
    var made: T?
    init(_ make: @escaping () -> T) { self.make = make }
    var value: T {
        if let made { return made }
        let value = make()
        made = value
        return value
    }
}

/// BENCH_ITERATIONS, when set.
let fixedIterations = getenv("BENCH_ITERATIONS").flatMap { Int(String(cString: $0)) }

/// A transition played frame after frame into one frame buffer. Built (and its caches warmed
/// by one pass, as a live overlay's would be) outside the measurement.
final class Player: @unchecked Sendable {
    enum Mode: String, CaseIterable { case naive, full, incremental }
    static let width = 1920, height = 1080
    let renderer: SceneRenderer
    let image: Image
    let frames: [[String: Value]]
    let mode: Mode
    var index = 0
    var previous: [String: Value]? = nil
    /// What was on screen before (panel-blur's retained layer shows it, blurred).
    let previousScreen: Image?

    init(transition: String, mode: Mode) {
        self.mode = mode
        let parameters: [String: Double] = ["screen.width": Double(Self.width), "screen.height": Double(Self.height)]
        let timeline = try! Timeline(document: Presets.document(named: transition)!, parameters: parameters)
        let count = Int((timeline.duration * 60).rounded(.up)) + 1
        frames = (0..<count).map {
            timeline.keyedValues(timeline.evaluate(at: min(Double($0) / 60, timeline.duration)))
        }
        let scene = Presets.scenes[transition] ?? "yula/yula.scene.json"
        renderer = try! SceneRenderer(
            sceneFile: repositoryRoot() + "/scenes/" + scene,
            cacheBytes: mode == .naive ? 0 : SceneRenderer.Limits.cacheBytes
        )
        image = try! renderer.makeFrame(width: Self.width, height: Self.height)
        // A stand-in home screen: the yula splash's last frame.
        previousScreen = transition == "panel-blur" ? Self.homeScreen() : nil
        for _ in frames { _ = step() }
    }

    func step() -> PixelRect? {
        let values = frames[index % frames.count]
        let damage = try! renderer.render(
            values: values,
            into: image,
            previous: mode == .incremental ? previous : nil,
            previousScreen: previousScreen
        )
        previous = values
        index += 1
        return damage
    }
}

extension Player {
    /// BENCH_FRAME_PROFILE="TRANSITION MODE": the wall time of each frame of the transition
    /// (median and maximum over 40 passes: the blur runs on several threads, so this thread's
    /// CPU clock would miss their share), one line per frame, then exits —
    /// which frames make the p99, without the benchmark harness.
    static func profile(_ spec: String) -> Never {
        let parts = spec.split(separator: " ").map(String.init)
        guard parts.count == 2, let mode = Mode(rawValue: parts[1]) else {
            print("BENCH_FRAME_PROFILE: \"TRANSITION naive|full|incremental\"")
            exit(2)
        }
        let player = Player(transition: parts[0], mode: mode)
        // BENCH_FRAME_ONLY=N: frames N − 1 and N in turn, 2000 times (to `perf record` frame N:
        // drawn after the frame before it, as in the transition, not after itself).
        if let only = getenv("BENCH_FRAME_ONLY").flatMap({ Int(String(cString: $0)) }) {
            for _ in 0..<2000 {
                player.index = max(only - 1, 0)
                _ = player.step()
                _ = player.step()
            }
            exit(0)
        }
        let passes = 40
        var times = [[Double]](repeating: [], count: player.frames.count)
        for _ in 0..<passes * player.frames.count {
            let frame = player.index % player.frames.count
            var start = timespec()
            var end = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            _ = player.step()
            clock_gettime(CLOCK_MONOTONIC, &end)
            times[frame].append(Double(end.tv_sec - start.tv_sec) * 1e3 + Double(end.tv_nsec - start.tv_nsec) / 1e6)
        }
        print("frame  median ms  max ms")
        for (frame, samples) in times.enumerated() {
            let sorted = samples.sorted()
            print("\(frame)  \(sorted[sorted.count / 2])  \(sorted.last!)")
        }
        let all = times.joined().sorted()
        print("all frames: p50 \(all[all.count / 2]) p99 \(all[all.count * 99 / 100]) ms")
        exit(0)
    }

    static func homeScreen() -> Image {
        let renderer = try! SceneRenderer(sceneFile: repositoryRoot() + "/scenes/yula/yula.scene.json")
        let timeline = try! Timeline(
            document: Presets.document(named: "yula-appear")!,
            parameters: ["screen.width": Double(width), "screen.height": Double(height)]
        )
        return try! renderer.render(
            values: timeline.keyedValues(timeline.evaluate(at: timeline.duration)),
            width: width,
            height: height,
            destination: Color(red: 0.95, green: 0.96, blue: 0.98)
        )
    }
}

/// The source tree: this file is Benchmarks/RenderBenchmarks/RenderBenchmarks.swift.
func repositoryRoot() -> String {
    "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
}
