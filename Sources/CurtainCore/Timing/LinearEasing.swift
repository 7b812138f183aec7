/// CSS Easing Level 2 `linear(...)`: a piecewise-linear easing through control points.
public struct LinearEasing: Sendable, Hashable {
    /// A stop as written: an output and zero, one or two input percentages (as fractions).
    public struct Stop: Sendable, Hashable {
        /// Output progress at this stop.
        public var output: Double
        /// Input progress where the stop lies (50 % is 0.5): none to place it evenly between its
        /// neighbours, two to hold the output over a range.
        public var inputs: [Double]
        /// A stop as `linear()` writes it: an output, then up to two percentages.
        public init(_ output: Double, inputs: [Double] = []) {
            self.output = output
            self.inputs = inputs
        }
    }

    /// A point of the piecewise-linear graph.
    public struct Point: Sendable, Hashable {
        /// Input progress.
        public let input: Double
        /// Output progress at `input`.
        public let output: Double
    }

    /// Canonical points after the spec's normalisation (every point has an input; inputs are
    /// non-decreasing). Always at least two.
    public let points: [Point]
    private let stops: [Stop]

    /// Builds the function from at least two stops (the parser reports fewer as an error).
    public init(stops: [Stop]) {
        precondition(stops.count >= 2, "linear() needs at least two stops")
        self.stops = stops
        points = Self.canonicalize(stops)
    }

    /// CSS Easing 2 §"create a linear easing function".
    private static func canonicalize(_ stops: [Stop]) -> [Point] {
        // 1. A stop with two inputs becomes two stops.
        var outputs: [Double] = []
        var inputs: [Double?] = []
        for stop in stops {
            if stop.inputs.isEmpty {
                outputs.append(stop.output)
                inputs.append(nil)
            } else {
                for input in stop.inputs.prefix(2) {
                    outputs.append(stop.output)
                    inputs.append(input)
                }
            }
        }
        // 2. Ends default to 0% and max(100%, largest input).
        if inputs[0] == nil { inputs[0] = 0 }
        if inputs[inputs.count - 1] == nil {
            inputs[inputs.count - 1] = max(1, inputs.compactMap { $0 }.max() ?? 1)
        }
        // 3. Inputs never go backwards.
        var largest = -Double.infinity
        for i in inputs.indices {
            if let input = inputs[i] {
                if input < largest { inputs[i] = largest } else { largest = input }
            }
        }
        // 4. Runs without inputs are spread evenly between their neighbours.
        var i = 0
        while i < inputs.count {
            guard inputs[i] == nil else {
                i += 1
                continue
            }
            let runStart = i - 1
            var runEnd = i
            while inputs[runEnd] == nil { runEnd += 1 }
            let from = inputs[runStart]!
            let to = inputs[runEnd]!
            let gaps = Double(runEnd - runStart)
            for j in i..<runEnd { inputs[j] = from + (to - from) * Double(j - runStart) / gaps }
            i = runEnd
        }
        return zip(inputs, outputs).map { Point(input: $0!, output: $1) }
    }

    /// CSS Easing 2 §"calculate linear easing output progress"; extrapolates beyond the ends.
    public func value(at input: Double) -> Double {
        // The last point whose input is ≤ input (or the first), kept so that a successor exists.
        var a = 0
        var low = 0
        var high = points.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if points[mid].input <= input {
                a = mid
                low = mid + 1
            } else {
                high = mid - 1
            }
        }
        if a == points.count - 1 { a -= 1 }
        let pa = points[a]
        let pb = points[a + 1]
        if pa.input == pb.input { return pb.output }
        return pa.output + (input - pa.input) / (pb.input - pa.input) * (pb.output - pa.output)
    }
}

extension LinearEasing: CustomStringConvertible {
    /// The function as written, e.g. `linear(0, 0.25 75%, 1)`, which the parser reads back.
    public var description: String {
        let parts = stops.map { stop in
            ([formatNumber(stop.output)] + stop.inputs.map { formatNumber($0 * 100) + "%" }).joined(separator: " ")
        }
        return "linear(\(parts.joined(separator: ", ")))"
    }
}
