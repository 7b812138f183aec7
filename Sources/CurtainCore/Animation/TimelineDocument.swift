/// The timeline format: a transition as data (JSON here, and the same keys in the TOML
/// configuration). `docs/timeline.md` documents every key; `Timeline(document:parameters:)`
/// validates and compiles it.
public struct TimelineDocument: Codable, Sendable, Hashable {
    /// The timeline's name, as presets and `curtainctl timeline` know it.
    public var name: String
    /// Free text.
    public var description: String?
    /// Named inputs with defaults, in order; a default may be an expression over earlier ones.
    public var parameters: [Parameter]?
    /// The layers and their model values; when present, every animation must name one of them.
    public var layers: [Layer]?
    /// What moves; a later animation of the same property wins while it shows a value.
    public var animations: [AnimationSpec]

    /// A named input: bound by the daemon (screen size, element frames) or by hand, else its default.
    public struct Parameter: Codable, Sendable, Hashable {
        /// How expressions refer to it, e.g. `screen.height`.
        public var name: String
        /// A number, or an expression over parameters declared before it; a bound value overrides it.
        public var `default`: Scalar
        /// Free text.
        public var description: String?
    }

    /// A layer the timeline animates, with its model values.
    public struct Layer: Codable, Sendable, Hashable {
        /// Non-empty and unique in the document; animations and scenes name the layer by it.
        public var id: String
        /// Free text.
        public var description: String?
        /// Model values: what the layer shows where no animation does.
        public var initial: [String: ValueSpec]?
    }

    /// One animation as written; `docs/timeline.md` gives each key's rules and default.
    public struct AnimationSpec: Codable, Sendable, Hashable {
        /// The id of the layer it animates.
        public var layer: String
        /// The property it animates, e.g. `opacity`: non-empty free text.
        public var property: String
        /// The start value; when missing, the layer's model value.
        public var from: ValueSpec?
        /// The end value; when missing, the layer's model value.
        public var to: ValueSpec?
        /// A keyframe animation instead of `from`/`to`.
        public var keyframes: Keyframes?
        /// Spring motion from `from` to `to`; excludes `timing`, and sets the duration when none is given.
        public var spring: SpringSpec?
        /// Seconds of one pass; required except with a spring.
        public var duration: Scalar?
        /// Seconds before it begins (Core Animation's `beginTime`); negative starts part-way. Default 0.
        public var delay: Scalar?
        /// Timing function text, as `TimingFunction(parsing:)` reads it; default `linear`.
        public var timing: String?
        /// Default `removed`.
        public var fill: Animation.FillMode?
        /// Passes to play; default 1.
        public var repeatCount: RepeatCount?
        /// Each pass plays forward, then back; default false.
        public var autoreverses: Bool?
        /// Time scale, greater than 0; default 1.
        public var speed: Double?
    }

    /// A keyframe track with `CAKeyframeAnimation`'s keys; `KeyframeTrack` states the rules.
    public struct Keyframes: Codable, Sendable, Hashable {
        /// The values, all of one kind.
        public var values: [ValueSpec]
        /// Where each value lies in the pass, from 0 to 1; evenly spaced when missing.
        public var keyTimes: [Double]?
        /// One timing function per segment, as text.
        public var timingFunctions: [String]?
        /// Default `linear`.
        public var calculationMode: KeyframeTrack.CalculationMode?
    }

    /// Core Animation's (mass, stiffness, damping), SwiftUI's (response, dampingFraction) or
    /// UIKit's (duration, dampingRatio); each with an optional initialVelocity.
    public struct SpringSpec: Codable, Sendable, Hashable {
        /// Core Animation's spelling, with `stiffness` and `damping`: the mass, 1 when missing.
        public var mass: Double?
        /// Core Animation's spelling: giving it selects that spelling.
        public var stiffness: Double?
        /// Core Animation's spelling: the damping, 0 when missing (which never settles).
        public var damping: Double?
        /// SwiftUI's spelling: the period of the undamped oscillation, in seconds.
        public var response: Double?
        /// SwiftUI's spelling, with `response`: 0.825 when missing, as SwiftUI's default.
        public var dampingFraction: Double?
        /// UIKit's spelling, with `dampingRatio`: the settling time in seconds, and the animation's
        /// duration unless it gives its own.
        public var duration: Double?
        /// UIKit's spelling: giving it selects that spelling.
        public var dampingRatio: Double?
        /// In progress units per second, positive towards the target; 0 when missing.
        public var initialVelocity: Double?
    }

    /// A number or an expression over parameters.
    public enum Scalar: Codable, Sendable, Hashable {
        case number(Double)
        case expression(String)

        /// A JSON number is a `.number`, a string an `.expression` (parsed when compiled).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
                return
            }
            self = .expression(try container.decode(String.self))
        }

        /// A number as a number, an expression as a string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let n): try container.encode(n)
            case .expression(let e): try container.encode(e)
            }
        }
    }

    /// A value as written: a number, an expression, a `#rrggbb[aa]` colour, or an object whose
    /// keys say the kind ({x, y}, {width, height}, {x, y, width, height}, transform parts, colour).
    public enum ValueSpec: Codable, Sendable, Hashable {
        case scalar(Scalar)
        case object([String: Scalar])

        /// An object is an `.object`; anything else a `.scalar` (a `#` string is a colour).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let object = try? container.decode([String: Scalar].self) {
                self = .object(object)
                return
            }
            self = .scalar(try container.decode(Scalar.self))
        }

        /// As it was written.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .scalar(let s): try container.encode(s)
            case .object(let o): try container.encode(o)
            }
        }
    }

    /// A count, or "infinite".
    public enum RepeatCount: Codable, Sendable, Hashable {
        case count(Double)
        case infinite

        /// A number, or the string `infinite`.
        /// - Throws: `DecodingError.dataCorrupted` for any other string.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let count = try? container.decode(Double.self) {
                self = .count(count)
                return
            }
            let text = try container.decode(String.self)
            guard text == "infinite" else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "repeatCount must be a number or \"infinite\", not \"\(text)\""
                )
            }
            self = .infinite
        }

        /// A number, or the string `infinite`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .count(let c): try container.encode(c)
            case .infinite: try container.encode("infinite")
            }
        }
    }
}
