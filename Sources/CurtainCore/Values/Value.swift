import RealModule

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

    /// A value's case without its components; all values of one animated property share one.
    public enum Kind: String, Sendable, Hashable {
        case scalar, point, size, rect, transform, color
    }

    /// Which kind this value is.
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
        case .transform(let t): [t.scaleX, t.scaleY, t.rotation, t.translationX, t.translationY, t.rotationY, t.m34]
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
            case 4: return t.translationY
            case 5: return t.rotationY
            default: return t.m34
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
        case .transform: ["scaleX", "scaleY", "rotation", "translationX", "translationY", "rotationY", "m34"]
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
        case .transform:
            .transform(
                Transform(
                    scaleX: c(0),
                    scaleY: c(1),
                    rotation: c(2),
                    translationX: c(3),
                    translationY: c(4),
                    rotationY: c(5),
                    m34: c(6)
                )
            )
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
            return .transform(
                Transform(
                    scaleX: mix(t1.scaleX, t2.scaleX),
                    scaleY: mix(t1.scaleY, t2.scaleY),
                    rotation: mix(t1.rotation, t2.rotation),
                    translationX: mix(t1.translationX, t2.translationX),
                    translationY: mix(t1.translationY, t2.translationY),
                    rotationY: mix(t1.rotationY, t2.rotationY),
                    m34: mix(t1.m34, t2.m34)
                )
            )
        case (.color(let c1), .color(let c2)):
            return .color(
                Color(
                    red: mix(c1.red, c2.red),
                    green: mix(c1.green, c2.green),
                    blue: mix(c1.blue, c2.blue),
                    alpha: mix(c1.alpha, c2.alpha)
                )
            )
        default:
            return f < 0.5 ? a : b
        }
    }

    /// A frame's value from io.curtain.Launcher's `Event.values` ("layer.property" →
    /// components, in `components` order): the property's name tells a point from a size and a
    /// colour from a rectangle, as the timeline's slot kinds do. A transform has 7 components
    /// (5 from daemons before rotationY and m34 went on the wire). Nil for any other count.
    /// Every renderer reading frames (curtainctl render --events, curtain-overlay) uses this.
    public init?(wireKey key: String, components c: [Double]) {
        let property = key.split(separator: ".").last.map(String.init) ?? key
        switch c.count {
        case 1: self = .scalar(c[0])
        case 2:
            self =
                property == "bounds" || property == "size" ? .size(width: c[0], height: c[1]) : .point(x: c[0], y: c[1])
        case 4:
            self =
                property.lowercased().hasSuffix("color")
                ? .color(Color(red: c[0], green: c[1], blue: c[2], alpha: c[3]))
                : .rect(x: c[0], y: c[1], width: c[2], height: c[3])
        case 5, 7:
            self = .transform(
                Transform(
                    scaleX: c[0],
                    scaleY: c[1],
                    rotation: c[2],
                    translationX: c[3],
                    translationY: c[4],
                    rotationY: c.count == 7 ? c[5] : 0,
                    m34: c.count == 7 ? c[6] : 0
                )
            )
        default: return nil
        }
    }

    /// Euclidean distance over components: what `paced` keyframes keep constant per second.
    public static func distance(_ a: Value, _ b: Value) -> Double {
        zip(a.components, b.components).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
    }
}

/// A layer transform kept as its parts, which animate independently (as UIKit's
/// `CGAffineTransform(scaleX:y:)`, `rotationAngle` and `translationX:y:` do in the seeds), plus
/// Core Animation's 3-D rotation about the y axis with perspective (seed 001's flip:
/// `CATransform3DMakeRotation(θ, 0, 1, 0)` under a transform whose `m34` is −1/eye distance).
/// Applied about the layer's anchor as: scale, then the y rotation projected with `m34`, then
/// rotation, then translation. A point (x, y) of the scaled layer, relative to the anchor, goes
/// to (x·cos θ, y) / w with w = 1 − m34·x·sin θ (row-vector `CATransform3D` maths: rotateY then
/// the m34 divide); the eye looks down the z axis through the anchor.
public struct Transform: Sendable, Hashable {
    /// Horizontal scale factor, 1 for none.
    public var scaleX: Double
    /// Vertical scale factor, 1 for none.
    public var scaleY: Double
    /// Radians, positive counter-clockwise in a y-up frame (Core Animation's rotateZ).
    public var rotation: Double
    /// In points; applied last, so neither scaled nor rotated.
    public var translationX: Double
    /// In points; applied last, so neither scaled nor rotated.
    public var translationY: Double
    /// Radians about the layer's vertical axis through its anchor (`rotateY`); ±π/2 is edge-on.
    public var rotationY: Double
    /// Perspective, as `CATransform3D.m34`: −1/d for an eye d points in front of the layer;
    /// 0 is an orthographic projection (a y rotation then only narrows the layer by cos θ).
    public var m34: Double

    /// Every part defaults to no change.
    public init(
        scaleX: Double = 1,
        scaleY: Double = 1,
        rotation: Double = 0,
        translationX: Double = 0,
        translationY: Double = 0,
        rotationY: Double = 0,
        m34: Double = 0
    ) {
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.rotation = rotation
        self.translationX = translationX
        self.translationY = translationY
        self.rotationY = rotationY
        self.m34 = m34
    }

    /// No scale, rotation, translation or perspective.
    public static let identity = Transform()

    /// Whether the y rotation makes the transform non-affine (the renderer projects the layer).
    public var hasDepth: Bool { rotationY != 0 }

    /// Where a point of the scaled layer, (x, y) from the anchor, lands after the y rotation and
    /// perspective (before rotation and translation); nil when it is at or behind the eye.
    public func project(x: Double, y: Double) -> (x: Double, y: Double)? {
        let w = 1 - m34 * x * Double.sin(rotationY)
        guard w > 1e-6 else { return nil }
        return (x * Double.cos(rotationY) / w, y / w)
    }
}

/// Straight (not premultiplied) RGBA, each in [0, 1].
public struct Color: Sendable, Hashable {
    /// Red, 0 to 1.
    public var red: Double
    /// Green, 0 to 1.
    public var green: Double
    /// Blue, 0 to 1.
    public var blue: Double
    /// Opacity, 0 (transparent) to 1; the colour components are not multiplied by it.
    public var alpha: Double

    /// Components as given, not clamped; alpha defaults to opaque.
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
