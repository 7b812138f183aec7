/// A value a layer property can take, and can be animated between.
///
/// Everything the seeds animate: opacity and blur radius (scalars), positions (points), sizes,
/// bounds (rects), affine transforms, and colours.
public enum Value: Sendable, Hashable {
    case scalar(Double)
    case point(x: Double, y: Double)
    case size(width: Double, height: Double)
    case rect(x: Double, y: Double, width: Double, height: Double)
    case transform(Transform)
    case color(Color)

    public enum Kind: String, Sendable, Hashable {
        case scalar, point, size, rect, transform, color
    }

    public var kind: Kind {
        switch self {
        case .scalar: .scalar
        case .point: .point
        case .size: .size
        case .rect: .rect
        case .transform: .transform
        case .color: .color
        }
    }

    /// The components in a fixed order (used for interpolation, distance and printing).
    public var components: [Double] {
        switch self {
        case .scalar(let v): [v]
        case .point(let x, let y): [x, y]
        case .size(let w, let h): [w, h]
        case .rect(let x, let y, let w, let h): [x, y, w, h]
        case .transform(let t): [t.scaleX, t.scaleY, t.rotation, t.translationX, t.translationY]
        case .color(let c): [c.red, c.green, c.blue, c.alpha]
        }
    }

    /// Component `i` of `components`, without building the array (for per-frame paths).
    @inlinable
    public func component(_ i: Int) -> Double {
        switch self {
        case .scalar(let v): return v
        case .point(let x, let y): return i == 0 ? x : y
        case .size(let w, let h): return i == 0 ? w : h
        case .rect(let x, let y, let w, let h): return i == 0 ? x : i == 1 ? y : i == 2 ? w : h
        case .transform(let t):
            switch i {
            case 0: return t.scaleX
            case 1: return t.scaleY
            case 2: return t.rotation
            case 3: return t.translationX
            default: return t.translationY
            }
        case .color(let c): return i == 0 ? c.red : i == 1 ? c.green : i == 2 ? c.blue : c.alpha
        }
    }

    /// Names of `components`, for tables and JSON.
    public static func componentNames(_ kind: Kind) -> [String] {
        switch kind {
        case .scalar: [""]
        case .point: ["x", "y"]
        case .size: ["width", "height"]
        case .rect: ["x", "y", "width", "height"]
        case .transform: ["scaleX", "scaleY", "rotation", "translationX", "translationY"]
        case .color: ["red", "green", "blue", "alpha"]
        }
    }

    /// Rebuilds a value of `kind` from components (the inverse of `components`).
    static func make(_ kind: Kind, _ c: (Int) -> Double) -> Value {
        switch kind {
        case .scalar: .scalar(c(0))
        case .point: .point(x: c(0), y: c(1))
        case .size: .size(width: c(0), height: c(1))
        case .rect: .rect(x: c(0), y: c(1), width: c(2), height: c(3))
        case .transform: .transform(Transform(scaleX: c(0), scaleY: c(1), rotation: c(2), translationX: c(3), translationY: c(4)))
        case .color: .color(Color(red: c(0), green: c(1), blue: c(2), alpha: c(3)))
        }
    }

    /// Component-wise `a + (b − a)·f`. `f` may leave [0, 1] (overshooting curves and springs
    /// extrapolate). Both values must be of one kind; the compiler checks this before evaluation.
    @inlinable
    public static func interpolate(_ a: Value, _ b: Value, _ f: Double) -> Value {
        @inline(__always) func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * f }
        switch (a, b) {
        case (.scalar(let x), .scalar(let y)): return .scalar(mix(x, y))
        case (.point(let x1, let y1), .point(let x2, let y2)): return .point(x: mix(x1, x2), y: mix(y1, y2))
        case (.size(let w1, let h1), .size(let w2, let h2)): return .size(width: mix(w1, w2), height: mix(h1, h2))
        case (.rect(let x1, let y1, let w1, let h1), .rect(let x2, let y2, let w2, let h2)):
            return .rect(x: mix(x1, x2), y: mix(y1, y2), width: mix(w1, w2), height: mix(h1, h2))
        case (.transform(let t1), .transform(let t2)):
            return .transform(Transform(
                scaleX: mix(t1.scaleX, t2.scaleX), scaleY: mix(t1.scaleY, t2.scaleY), rotation: mix(t1.rotation, t2.rotation),
                translationX: mix(t1.translationX, t2.translationX), translationY: mix(t1.translationY, t2.translationY)))
        case (.color(let c1), .color(let c2)):
            return .color(Color(red: mix(c1.red, c2.red), green: mix(c1.green, c2.green), blue: mix(c1.blue, c2.blue), alpha: mix(c1.alpha, c2.alpha)))
        default:
            return f < 0.5 ? a : b
        }
    }

    /// Euclidean distance over components: what `paced` keyframes keep constant per second.
    public static func distance(_ a: Value, _ b: Value) -> Double {
        zip(a.components, b.components).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
    }
}

/// A 2-D affine transform kept as its parts, which animate independently (as UIKit's
/// `CGAffineTransform(scaleX:y:)`, `rotationAngle` and `translationX:y:` do in the seeds).
/// Applied as scale, then rotation, then translation, about the layer's anchor.
public struct Transform: Sendable, Hashable {
    public var scaleX: Double
    public var scaleY: Double
    /// Radians, positive counter-clockwise in a y-up frame (Core Animation's rotateZ).
    public var rotation: Double
    public var translationX: Double
    public var translationY: Double

    public init(scaleX: Double = 1, scaleY: Double = 1, rotation: Double = 0, translationX: Double = 0, translationY: Double = 0) {
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.rotation = rotation
        self.translationX = translationX
        self.translationY = translationY
    }

    public static let identity = Transform()
}

/// Straight (not premultiplied) RGBA, each in [0, 1].
public struct Color: Sendable, Hashable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`.
    public init?(hex: String) {
        guard hex.first == "#" else { return nil }
        var digits = Array(hex.utf8.dropFirst()).map { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        guard !digits.contains(nil) else { return nil }
        if digits.count == 3 || digits.count == 4 { digits = digits.flatMap { [$0, $0] } }
        if digits.count == 6 { digits += [15, 15] }
        guard digits.count == 8 else { return nil }
        let bytes = stride(from: 0, to: 8, by: 2).map { Double(digits[$0]! * 16 + digits[$0 + 1]!) / 255 }
        self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes[3])
    }
}
