/// Validation and compilation of a `TimelineDocument` into an evaluatable `Timeline`.
extension Timeline {
    /// Explicit limits: a document over them is rejected with the limit named.
    public enum Limits {
        /// Most parameters a document may declare.
        public static let parameters = 64
        /// Most layers a document may declare.
        public static let layers = 64
        /// Most animations a document may hold.
        public static let animations = 256
        /// Longest simple duration or delay, in seconds.
        public static let seconds = 3600.0
    }

    /// Compiles `document` with `parameters` bound (given values override declared defaults).
    ///
    /// Expressions are evaluated here, once; the timeline then holds only numbers.
    /// - Throws: `TimelineError` with the path of the first problem, e.g. a limit exceeded, an
    ///   expression that does not evaluate to a finite number, an unknown layer, a missing
    ///   duration, a timing function or spring that does not parse, or values of different kinds
    ///   for one property.
    public init(document: TimelineDocument, parameters given: [String: Double] = [:]) throws(TimelineError) {
        var compiler = TimelineCompiler(document: document, parameters: given)
        self = try compiler.compile()
    }
}

private struct TimelineCompiler {
    let document: TimelineDocument
    var parameters: [String: Double]
    var slots: [Timeline.Slot] = []
    var declaredLayers: Set<String>? = nil

    init(document: TimelineDocument, parameters: [String: Double]) {
        self.document = document
        self.parameters = parameters
    }

    mutating func compile() throws(TimelineError) -> Timeline {
        try bindParameters()
        try declareLayers()
        let specs = document.animations
        guard specs.count <= Timeline.Limits.animations else {
            throw TimelineError(
                "animations",
                "holds \(specs.count) animations, more than the limit of \(Timeline.Limits.animations)"
            )
        }
        var tracks: [Timeline.Track] = []
        for (index, spec) in specs.enumerated() {
            tracks.append(try track(spec, path: "animations[\(index)]"))
        }
        return Timeline(name: document.name, slots: slots, tracks: tracks, parameters: parameters)
    }

    mutating func bindParameters() throws(TimelineError) {
        let declared = document.parameters ?? []
        guard declared.count <= Timeline.Limits.parameters else {
            throw TimelineError(
                "parameters",
                "holds \(declared.count) parameters, more than the limit of \(Timeline.Limits.parameters)"
            )
        }
        for (index, parameter) in declared.enumerated() where parameters[parameter.name] == nil {
            parameters[parameter.name] = try scalar(parameter.default, path: "parameters[\(index)].default")
        }
        for (name, value) in parameters where !value.isFinite {
            throw TimelineError("parameters.\(name)", "\(value) is not a finite number")
        }
    }

    mutating func declareLayers() throws(TimelineError) {
        guard let layers = document.layers else { return }
        guard layers.count <= Timeline.Limits.layers else {
            throw TimelineError(
                "layers",
                "holds \(layers.count) layers, more than the limit of \(Timeline.Limits.layers)"
            )
        }
        var seen = Set<String>()
        for (index, layer) in layers.enumerated() {
            let path = "layers[\(index)]"
            guard !layer.id.isEmpty else { throw TimelineError("\(path).id", "must not be empty") }
            guard seen.insert(layer.id).inserted else {
                throw TimelineError("\(path).id", "'\(layer.id)' is declared twice")
            }
            for (property, spec) in (layer.initial ?? [:]).sorted(by: { $0.key < $1.key }) {
                let value = try value(spec, path: "\(path).initial.\(property)")
                slots.append(Timeline.Slot(layer: layer.id, property: property, initial: value))
            }
        }
        declaredLayers = seen
    }

    mutating func track(_ spec: TimelineDocument.AnimationSpec, path: String) throws(TimelineError) -> Timeline.Track {
        if let declaredLayers, !declaredLayers.contains(spec.layer) {
            throw TimelineError(
                "\(path).layer",
                "unknown layer '\(spec.layer)' (declared: \(declaredLayers.sorted().joined(separator: ", ")))"
            )
        }
        guard !spec.property.isEmpty else { throw TimelineError("\(path).property", "must not be empty") }
        let existing = slots.firstIndex { $0.layer == spec.layer && $0.property == spec.property }
        let model = existing.map { slots[$0].initial }

        // Content: from/to (with an optional spring) or keyframes, never both.
        let content: Animation.Content
        var timing = TimingFunction.linear
        var duration: Double? = try spec.duration.map { (d) throws(TimelineError) in
            try seconds(d, path: "\(path).duration", allowNegative: false)
        }
        if let keyframes = spec.keyframes {
            guard spec.from == nil, spec.to == nil else {
                throw TimelineError(path, "has both keyframes and from/to; use one")
            }
            guard spec.spring == nil else {
                throw TimelineError("\(path).spring", "applies to from/to animations, not keyframes")
            }
            var values: [Value] = []
            for (i, v) in keyframes.values.enumerated() {
                values.append(try value(v, path: "\(path).keyframes.values[\(i)]"))
            }
            var functions: [TimingFunction]? = nil
            if let texts = keyframes.timingFunctions {
                functions = []
                for (i, text) in texts.enumerated() {
                    functions!.append(try timingFunction(text, path: "\(path).keyframes.timingFunctions[\(i)]"))
                }
            }
            content = .keyframes(
                try KeyframeTrack(
                    values: values,
                    keyTimes: keyframes.keyTimes,
                    timingFunctions: functions,
                    mode: keyframes.calculationMode ?? .linear,
                    path: "\(path).keyframes"
                )
            )
        } else {
            guard spec.from != nil || spec.to != nil else { throw TimelineError(path, "needs from/to or keyframes") }
            let property = spec.property
            func endpoint(_ written: TimelineDocument.ValueSpec?, _ name: String) throws(TimelineError) -> Value {
                if let written { return try value(written, path: "\(path).\(name)") }
                guard let model else {
                    throw TimelineError(
                        "\(path).\(name)",
                        "is missing and the layer declares no initial '\(property)' to take it from"
                    )
                }
                return model
            }
            content = .basic(from: try endpoint(spec.from, "from"), to: try endpoint(spec.to, "to"))
        }
        if let springSpec = spec.spring {
            guard spec.timing == nil else { throw TimelineError("\(path).timing", "cannot be combined with spring") }
            let built = try spring(springSpec, path: "\(path).spring", explicitDuration: duration)
            timing = .spring(built.spring)
            if duration == nil { duration = built.duration }
        } else if let text = spec.timing {
            timing = try timingFunction(text, path: "\(path).timing")
        }
        guard let duration else { throw TimelineError("\(path).duration", "is required (seconds)") }

        let beginTime =
            try spec.delay.map { (d) throws(TimelineError) in try seconds(d, path: "\(path).delay", allowNegative: true)
            } ?? 0
        let speed = spec.speed ?? 1
        guard speed.isFinite, speed > 0 else { throw TimelineError("\(path).speed", "must be greater than 0") }
        var repeatCount = 1.0
        switch spec.repeatCount {
        case .infinite: repeatCount = .infinity
        case .count(let count):
            guard count.isFinite, count >= 0 else {
                throw TimelineError("\(path).repeatCount", "must be at least 0 or \"infinite\"")
            }
            repeatCount = count
        case nil: break
        }
        let animation = Animation(
            content: content,
            timing: timing,
            duration: duration,
            beginTime: beginTime,
            fill: spec.fill ?? .removed,
            repeatCount: repeatCount,
            autoreverses: spec.autoreverses ?? false,
            speed: speed
        )

        let kind = animation.startValue.kind
        if let existing {
            guard slots[existing].initial.kind == kind else {
                throw TimelineError(
                    path,
                    "animates \(spec.layer).\(spec.property) as a \(kind.rawValue), but it is a \(slots[existing].initial.kind.rawValue)"
                )
            }
            return Timeline.Track(slot: existing, animation: animation)
        }
        slots.append(Timeline.Slot(layer: spec.layer, property: spec.property, initial: animation.startValue))
        return Timeline.Track(slot: slots.count - 1, animation: animation)
    }

    func scalar(_ scalar: TimelineDocument.Scalar, path: String) throws(TimelineError) -> Double {
        let result: Double
        switch scalar {
        case .number(let n): result = n
        case .expression(let text):
            do { result = try Expression(parsing: text).evaluate(parameters) } catch {
                throw TimelineError(path, error.description)
            }
        }
        guard result.isFinite else { throw TimelineError(path, "evaluates to \(result), not a finite number") }
        return result
    }

    func seconds(_ scalar: TimelineDocument.Scalar, path: String, allowNegative: Bool) throws(TimelineError) -> Double {
        let value = try self.scalar(scalar, path: path)
        guard allowNegative || value >= 0 else { throw TimelineError(path, "\(value) is negative") }
        guard abs(value) <= Timeline.Limits.seconds else {
            throw TimelineError(path, "\(value) s is beyond the limit of \(Timeline.Limits.seconds) s")
        }
        return value
    }

    func timingFunction(_ text: String, path: String) throws(TimelineError) -> TimingFunction {
        do { return try TimingFunction(parsing: text) } catch { throw TimelineError(path, error.description) }
    }

    /// `explicitDuration`: the animation's own `duration`, which ends a spring that would never
    /// settle (damping 0) as docs/timeline.md promises.
    func spring(
        _ spec: TimelineDocument.SpringSpec,
        path: String,
        explicitDuration: Double? = nil
    ) throws(TimelineError) -> (spring: Spring, duration: Double) {
        let velocity = spec.initialVelocity ?? 0
        guard velocity.isFinite else { throw TimelineError("\(path).initialVelocity", "must be finite") }
        func positive(_ value: Double?, _ name: String) throws(TimelineError) -> Double {
            guard let value, value.isFinite, value > 0 else {
                throw TimelineError("\(path).\(name)", "must be a number greater than 0")
            }
            return value
        }
        let spring: Spring
        var duration: Double? = nil
        switch (spec.stiffness, spec.response, spec.dampingRatio) {
        case (.some, nil, nil):
            let damping = spec.damping ?? 0
            guard damping.isFinite, damping >= 0 else { throw TimelineError("\(path).damping", "must be at least 0") }
            spring = Spring(
                mass: try positive(spec.mass ?? 1, "mass"),
                stiffness: try positive(spec.stiffness, "stiffness"),
                damping: damping,
                initialVelocity: velocity
            )
        case (nil, .some, nil):
            let fraction = spec.dampingFraction ?? 0.825  // SwiftUI's default for .spring()
            guard fraction.isFinite, fraction >= 0 else {
                throw TimelineError("\(path).dampingFraction", "must be at least 0")
            }
            spring = Spring(
                response: try positive(spec.response, "response"),
                dampingFraction: fraction,
                initialVelocity: velocity
            )
        case (nil, nil, .some):
            let total = try positive(spec.duration, "duration")
            guard total <= Timeline.Limits.seconds else {
                throw TimelineError("\(path).duration", "is beyond the limit of \(Timeline.Limits.seconds) s")
            }
            spring = Spring(
                duration: total,
                dampingRatio: try positive(spec.dampingRatio, "dampingRatio"),
                initialVelocity: velocity
            )
            duration = total
        default:
            throw TimelineError(
                path,
                "give exactly one of: stiffness (with mass, damping), response (with dampingFraction), or dampingRatio (with duration)"
            )
        }
        let settling = duration ?? explicitDuration ?? spring.settlingDuration()
        guard settling.isFinite, settling <= Timeline.Limits.seconds else {
            throw TimelineError(
                path,
                "never settles within \(Timeline.Limits.seconds) s (damping too low); give a duration"
            )
        }
        return (spring, settling)
    }

    func value(_ spec: TimelineDocument.ValueSpec, path: String) throws(TimelineError) -> Value {
        switch spec {
        case .scalar(.expression(let text)) where text.hasPrefix("#"):
            guard let color = Color(hex: text) else {
                throw TimelineError(path, "'\(text)' is not a #rgb, #rgba, #rrggbb or #rrggbbaa colour")
            }
            return .color(color)
        case .scalar(let s):
            return .scalar(try scalar(s, path: path))
        case .object(let object):
            var c: [String: Double] = [:]
            for (key, s) in object { c[key] = try scalar(s, path: "\(path).\(key)") }
            let keys = Set(c.keys)
            switch keys {
            case ["x", "y"]: return .point(x: c["x"]!, y: c["y"]!)
            case ["width", "height"]: return .size(width: c["width"]!, height: c["height"]!)
            case ["x", "y", "width", "height"]:
                return .rect(x: c["x"]!, y: c["y"]!, width: c["width"]!, height: c["height"]!)
            case ["red", "green", "blue"], ["red", "green", "blue", "alpha"]:
                return .color(Color(red: c["red"]!, green: c["green"]!, blue: c["blue"]!, alpha: c["alpha"] ?? 1))
            default:
                let transformKeys: Set<String> = [
                    "scale", "scaleX", "scaleY", "rotation", "translationX", "translationY", "rotationY", "m34",
                ]
                guard !keys.isEmpty, keys.isSubset(of: transformKeys),
                    !(keys.contains("scale") && (keys.contains("scaleX") || keys.contains("scaleY")))
                else {
                    throw TimelineError(
                        path,
                        "keys \(keys.sorted()) name no value kind; use {x,y}, {width,height}, {x,y,width,height}, {red,green,blue[,alpha]} or transform parts (scale | scaleX/scaleY, rotation, translationX, translationY, rotationY, m34)"
                    )
                }
                return .transform(
                    Transform(
                        scaleX: c["scale"] ?? c["scaleX"] ?? 1,
                        scaleY: c["scale"] ?? c["scaleY"] ?? 1,
                        rotation: c["rotation"] ?? 0,
                        translationX: c["translationX"] ?? 0,
                        translationY: c["translationY"] ?? 0,
                        rotationY: c["rotationY"] ?? 0,
                        m34: c["m34"] ?? 0
                    )
                )
            }
        }
    }
}
