import Benchmark
import CurtainCore

/// Evaluations of the timeline engine: what the frame clock pays per frame.
/// Each iteration does `batch` evaluations, so throughput reads in evaluations ×1000 per second.
let batch = 1000

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    Benchmark("cubic-bezier evaluation (ease)") { benchmark in
        let curve = CubicBezier(0.25, 0.1, 0.25, 1)
        var sum = 0.0
        for i in benchmark.scaledIterations {
            sum += curve.value(at: Double(i & 1023) / 1023)
        }
        blackHole(sum)
    }

    Benchmark("spring evaluation (underdamped)") { benchmark in
        let spring = Spring(stiffness: 300, damping: 15)
        var sum = 0.0
        for i in benchmark.scaledIterations {
            sum += spring.value(atTime: Double(i & 1023) / 1023)
        }
        blackHole(sum)
    }

    // Built once, outside the measured closures.
    let ten = tenTrackTimeline()
    let yula = try! Timeline(document: Presets.document(named: "yula-mask-reveal")!)

    Benchmark("10-track frame") { benchmark in
        let timeline = ten
        var values = timeline.slots.map(\.initial)
        let duration = timeline.duration
        for i in benchmark.scaledIterations {
            timeline.evaluate(at: duration * Double(i & 1023) / 1023, into: &values)
        }
        blackHole(values)
    }

    Benchmark("yula-mask-reveal frame") { benchmark in
        let timeline = yula
        var values = timeline.slots.map(\.initial)
        for i in benchmark.scaledIterations {
            timeline.evaluate(at: 0.6 * Double(i & 1023) / 1023, into: &values)
        }
        blackHole(values)
    }
}

/// Ten animated properties of the kinds a reveal uses: eased scalars, keyframes, a spring,
/// a transform, a colour and a rect.
func tenTrackTimeline() -> Timeline {
    let json = """
        {"name": "ten", "animations": [
          {"layer": "a", "property": "opacity", "from": 0, "to": 1, "duration": 0.6, "timing": "ease-in-out", "fill": "both"},
          {"layer": "a", "property": "scale", "duration": 0.6, "fill": "both",
           "keyframes": {"values": [1, 0.85, 18], "keyTimes": [0, 0.2, 1], "timingFunctions": ["easeInEaseOut", "easeOut"]}},
          {"layer": "a", "property": "rotation", "from": 0, "to": -1.06, "duration": 0.6, "fill": "both"},
          {"layer": "b", "property": "y", "from": 600, "to": 0, "spring": {"stiffness": 300, "damping": 20}, "fill": "both"},
          {"layer": "b", "property": "transform", "from": {"scale": 0.9, "translationY": 40}, "to": {"scale": 1, "translationY": 0},
           "duration": 0.5, "timing": "cubic-bezier(0.2, 0.8, 0.2, 1)", "fill": "both"},
          {"layer": "c", "property": "color", "from": "#000000ff", "to": "#ffffff00", "duration": 0.4, "timing": "ease", "fill": "both"},
          {"layer": "c", "property": "frame", "from": {"x": 0, "y": 0, "width": 72, "height": 72},
           "to": {"x": 100, "y": 200, "width": 88, "height": 88}, "duration": 0.45, "timing": "ease-out", "fill": "both"},
          {"layer": "c", "property": "blur", "from": 0, "to": 20, "duration": 0.3, "delay": 0.1, "timing": "ease-in", "fill": "both"},
          {"layer": "d", "property": "opacity", "from": 1, "to": 0, "duration": 0.1, "delay": 0.1, "timing": "easeInEaseOut", "fill": "both"},
          {"layer": "d", "property": "position", "duration": 0.6, "fill": "both",
           "keyframes": {"values": [{"x": 0, "y": 0}, {"x": 50, "y": 80}, {"x": 100, "y": 100}], "calculationMode": "cubic"}}
        ]}
        """
    return try! Timeline(document: TimelineDocument(json: Array(json.utf8)))
}
