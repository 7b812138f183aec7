import ArgumentParser
import CurtainCore
import CurtainctlSupport

/// `curtainctl curve`: evaluate a timing function, as a designer tuning a curve needs.
struct CurveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curve",
        abstract: "Evaluate a timing function or spring at given inputs.",
        discussion: """
            Prints one line per input, "X Y". For a timing function X is input progress (values \
            outside [0, 1] extrapolate as CSS Easing Level 2 specifies); for spring(...) X is time \
            in seconds. Without --at or --samples, 11 evenly spaced samples are printed.

            Examples:
              curtainctl curve 'cubic-bezier(0.25, 0.1, 0.25, 1)' --at 0.5
              curtainctl curve easeInEaseOut --samples 5 --json
              curtainctl curve 'steps(4, jump-start)' --at 0 --before
              curtainctl curve 'spring(1 100 10 0)' --samples 50 --svg spring.svg
            """
    )

    @Argument(help: "The timing function, e.g. ease-out, 'cubic-bezier(0.4, 0, 0.2, 1)', 'spring(1 100 10 0)'.")
    var function: String

    @Option(
        name: .customLong("at"),
        parsing: .upToNextOption,
        help: ArgumentHelp("Inputs to evaluate at.", valueName: "x")
    )
    var inputs: [Double] = []

    @Option(help: "Evaluate at N evenly spaced inputs over [0, 1] (over the settling time for a spring), 2 to 100000.")
    var samples: Int?

    @Flag(help: "Evaluate with the CSS before flag set (an animation's before phase; only steps() reads it).")
    var before = false

    @Flag(help: "Print a JSON array of {\"x\", \"y\"} objects.")
    var json = false

    @Option(help: ArgumentHelp("Also write an SVG plot of the curve to this file.", valueName: "file"))
    var svg: String?

    static let maximumSamples = 100_000

    func run() throws {
        let timing: TimingFunction
        do { timing = try TimingFunction(parsing: function) } catch { throw fail("curve", error.description) }

        let evaluate: (Double) -> Double
        var domain = 0.0...1.0
        if case .spring(let spring) = timing {
            evaluate = { spring.value(atTime: $0) }
            let settle = spring.settlingDuration()
            domain = 0...(settle.isFinite ? settle : 10)
        } else {
            evaluate = { [before] in timing.value(at: $0, before: before) }
        }

        var xs = inputs
        if let samples {
            guard (2...Self.maximumSamples).contains(samples) else {
                throw fail("curve", "--samples \(samples) is outside 2...\(Self.maximumSamples)")
            }
            xs += (0..<samples).map {
                domain.lowerBound + (domain.upperBound - domain.lowerBound) * Double($0) / Double(samples - 1)
            }
        } else if xs.isEmpty {
            xs = (0...10).map { domain.lowerBound + (domain.upperBound - domain.lowerBound) * Double($0) / 10 }
        }
        if let bad = xs.first(where: { !$0.isFinite }) { throw fail("curve", "input \(bad) is not a finite number") }
        let points = xs.map { (x: $0, y: evaluate($0)) }

        if json {
            print(
                "[" + points.map { "{\"x\":\(Format.json($0.x)),\"y\":\(Format.json($0.y))}" }.joined(separator: ",")
                    + "]"
            )
        } else {
            for point in points { print("\(Format.number(point.x)) \(Format.number(point.y))") }
        }
        if let svg {
            // A dense sampling for the picture, whatever was printed.
            let low = min(domain.lowerBound, xs.min() ?? 0)
            let high = max(domain.upperBound, xs.max() ?? 1)
            let dense = (0...400).map { i -> (Double, Double) in
                let x = low + (high - low) * Double(i) / 400
                return (x, evaluate(x))
            }
            let plot = SVGPlot(
                title: timing.description,
                xLabel: timing.isSpring ? "time (s)" : "input progress",
                panels: [.init(name: "output", points: dense, marks: points.map { ($0.x, $0.y) })]
            )
            do { try Files.write(plot.render(), to: svg) } catch {
                throw fail("curve", "cannot write the plot: \(error)")
            }
        }
    }
}

extension TimingFunction {
    var isSpring: Bool { if case .spring = self { true } else { false } }
}
