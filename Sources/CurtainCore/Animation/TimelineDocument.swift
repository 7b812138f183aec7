/// The timeline format: a transition as data (JSON here, and the same keys in the TOML
/// configuration). `docs/timeline.md` documents every key; `Timeline(document:parameters:)`
/// validates and compiles it.
public struct TimelineDocument: Codable, Sendable, Hashable {
    public var name: String
    public var description: String?
    /// Named inputs with defaults, in order; a default may be an expression over earlier ones.
    public var parameters: [Parameter]?
    public var layers: [Layer]?
    public var animations: [AnimationSpec]

    public struct Parameter: Codable, Sendable, Hashable {
        public var name: String
        public var `default`: Scalar
        public var description: String?
    }

    public struct Layer: Codable, Sendable, Hashable {
        public var id: String
        public var description: String?
        /// Model values: what the layer shows where no animation does.
        public var initial: [String: ValueSpec]?
    }

    public struct AnimationSpec: Codable, Sendable, Hashable {
        public var layer: String
        public var property: String
        public var from: ValueSpec?
        public var to: ValueSpec?
        public var keyframes: Keyframes?
        public var spring: SpringSpec?
        public var duration: Scalar?
        public var delay: Scalar?
        public var timing: String?
        public var fill: Animation.FillMode?
        public var repeatCount: RepeatCount?
        public var autoreverses: Bool?
        public var speed: Double?
    }

    public struct Keyframes: Codable, Sendable, Hashable {
        public var values: [ValueSpec]
        public var keyTimes: [Double]?
        public var timingFunctions: [String]?
        public var calculationMode: KeyframeTrack.CalculationMode?
    }

    /// Core Animation's (mass, stiffness, damping), SwiftUI's (response, dampingFraction) or
    /// UIKit's (duration, dampingRatio); each with an optional initialVelocity.
    public struct SpringSpec: Codable, Sendable, Hashable {
        public var mass: Double?
        public var stiffness: Double?
        public var damping: Double?
        public var response: Double?
        public var dampingFraction: Double?
        public var duration: Double?
        public var dampingRatio: Double?
        public var initialVelocity: Double?
    }

    /// A number or an expression over parameters.
    public enum Scalar: Codable, Sendable, Hashable {
        case number(Double)
        case expression(String)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) { self = .number(number); return }
            self = .expression(try container.decode(String.self))
        }

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

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let object = try? container.decode([String: Scalar].self) { self = .object(object); return }
            self = .scalar(try container.decode(Scalar.self))
        }

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

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let count = try? container.decode(Double.self) { self = .count(count); return }
            let text = try container.decode(String.self)
            guard text == "infinite" else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "repeatCount must be a number or \"infinite\", not \"\(text)\"")
            }
            self = .infinite
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .count(let c): try container.encode(c)
            case .infinite: try container.encode("infinite")
            }
        }
    }
}
