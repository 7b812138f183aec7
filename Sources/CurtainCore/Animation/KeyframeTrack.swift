/// A `CAKeyframeAnimation`-style track: values at key times, with a calculation mode.
public struct KeyframeTrack: Sendable, Hashable {
    /// Core Animation's `calculationMode`.
    public enum CalculationMode: String, Sendable, Hashable, CaseIterable, Codable {
        /// `linear`: straight lines between values; `discrete`: each value holds until the next
        /// key time; `paced`: linear at constant speed (key times from distances); `cubic`: a
        /// Catmull-Rom spline; `cubicPaced`: the spline at key times from distances.
        case linear, discrete, paced, cubic, cubicPaced
    }

    /// At least one value, all of one kind.
    public let values: [Value]
    /// Effective key times: as given, evenly spaced by default, or by distance when paced.
    public let keyTimes: [Double]
    /// One per segment, or empty for linear pacing inside each segment.
    public let timingFunctions: [TimingFunction]
    /// How the values between key times are computed.
    public let mode: CalculationMode

    /// Most values one track may hold.
    public static let maximumValues = 1024

    /// Validates with Core Animation's rules (see `docs/timeline.md`); `path` prefixes errors.
    /// - Throws: `TimelineError` for no values or more than `maximumValues`, values of different
    ///   kinds, key times of the wrong count, outside [0, 1], decreasing or not from 0 to 1,
    ///   timing functions of the wrong count or in discrete mode, and key times or timing
    ///   functions given in a paced mode (which ignores them).
    public init(
        values: [Value],
        keyTimes: [Double]? = nil,
        timingFunctions: [TimingFunction]? = nil,
        mode: CalculationMode = .linear,
        path: String = "keyframes"
    ) throws(TimelineError) {
        guard !values.isEmpty else { throw TimelineError("\(path).values", "must hold at least one value") }
        guard values.count <= Self.maximumValues else {
            throw TimelineError(
                "\(path).values",
                "holds \(values.count) values, more than the limit of \(Self.maximumValues)"
            )
        }
        if let mismatch = values.firstIndex(where: { $0.kind != values[0].kind }) {
            throw TimelineError(
                "\(path).values[\(mismatch)]",
                "is a \(values[mismatch].kind.rawValue), but values[0] is a \(values[0].kind.rawValue)"
            )
        }
        let n = values.count
        let paced = mode == .paced || mode == .cubicPaced
        if paced {
            // Core Animation ignores these in paced modes; we say so rather than drop them silently.
            if keyTimes != nil {
                throw TimelineError("\(path).keyTimes", "are ignored in \(mode.rawValue) mode; remove them")
            }
            if timingFunctions != nil {
                throw TimelineError("\(path).timingFunctions", "are ignored in \(mode.rawValue) mode; remove them")
            }
        }
        if let keyTimes {
            let allowed = mode == .discrete ? [n, n + 1] : [n]
            guard allowed.contains(keyTimes.count) else {
                let expected = mode == .discrete ? "\(n) or \(n + 1)" : "\(n)"
                throw TimelineError(
                    "\(path).keyTimes",
                    "has \(keyTimes.count) entries; \(mode.rawValue) mode with \(n) values needs \(expected)"
                )
            }
            for (i, t) in keyTimes.enumerated() {
                guard t.isFinite, (0...1).contains(t) else {
                    throw TimelineError("\(path).keyTimes[\(i)]", "\(t) is not within [0, 1]")
                }
                if i > 0, t < keyTimes[i - 1] {
                    throw TimelineError(
                        "\(path).keyTimes[\(i)]",
                        "\(t) is less than the key time before it (\(keyTimes[i - 1])); key times must not decrease"
                    )
                }
            }
            if keyTimes.first != 0 || (keyTimes.count > 1 && keyTimes.last != 1) {
                throw TimelineError("\(path).keyTimes", "must start at 0 and end at 1")
            }
        }
        if let timingFunctions {
            guard mode != .discrete else {
                throw TimelineError("\(path).timingFunctions", "have no effect in discrete mode; remove them")
            }
            guard timingFunctions.count == max(n - 1, 0) else {
                throw TimelineError(
                    "\(path).timingFunctions",
                    "has \(timingFunctions.count) entries; \(n) values make \(n - 1) segments, one function each"
                )
            }
        }
        self.values = values
        self.mode = mode
        self.timingFunctions = timingFunctions ?? []
        if let keyTimes {
            self.keyTimes = keyTimes
        } else if paced && n > 1 {
            // Constant speed: key times proportional to the distance travelled.
            var lengths = [0.0]
            for i in 1..<n { lengths.append(lengths[i - 1] + Value.distance(values[i - 1], values[i])) }
            let total = lengths[n - 1]
            self.keyTimes = total > 0 ? lengths.map { $0 / total } : (0..<n).map { Double($0) / Double(n - 1) }
        } else if mode == .discrete {
            self.keyTimes = (0..<n).map { Double($0) / Double(n) }
        } else {
            self.keyTimes = n == 1 ? [0] : (0..<n).map { Double($0) / Double(n - 1) }
        }
    }

    /// The value at track progress `p` (normally in [0, 1]; beyond it the end segments
    /// extrapolate, as an overshooting overall timing function asks).
    public func value(at p: Double, before: Bool = false) -> Value {
        let n = values.count
        if n == 1 { return values[0] }
        if mode == .discrete {
            var index = 0
            for i in 0..<min(n, keyTimes.count) where keyTimes[i] <= p { index = i }
            return values[p >= 1 ? n - 1 : index]
        }
        // The segment holding p: the last i < n-1 with keyTimes[i] ≤ p.
        var i = 0
        while i < n - 2, keyTimes[i + 1] <= p { i += 1 }
        let t0 = keyTimes[i]
        let t1 = keyTimes[i + 1]
        guard t1 > t0 else { return values[i + 1] }
        var local = (p - t0) / (t1 - t0)
        if !timingFunctions.isEmpty { local = timingFunctions[i].value(at: local, before: before) }
        if mode == .cubic || mode == .cubicPaced { return catmullRom(segment: i, local) }
        return Value.interpolate(values[i], values[i + 1], local)
    }

    /// Core Animation's cubic mode is a Kochanek–Bartels spline whose tension, continuity and
    /// bias default to 0: a Catmull-Rom spline, with the end points doubled.
    private func catmullRom(segment i: Int, _ u: Double) -> Value {
        let p0 = values[max(i - 1, 0)]
        let p1 = values[i]
        let p2 = values[i + 1]
        let p3 = values[min(i + 2, values.count - 1)]
        let u2 = u * u
        let u3 = u2 * u
        let h00 = 2 * u3 - 3 * u2 + 1
        let h10 = u3 - 2 * u2 + u
        let h01 = -2 * u3 + 3 * u2
        let h11 = u3 - u2
        return Value.make(values[i].kind) { c in
            let m1 = (p2.component(c) - p0.component(c)) / 2
            let m2 = (p3.component(c) - p1.component(c)) / 2
            return h00 * p1.component(c) + h10 * m1 + h01 * p2.component(c) + h11 * m2
        }
    }
}
