/// A layer as it shows at one instant: the scene's model values with a frame's animated values
/// (`layer.property`) on top (Core Animation's presentation layer).
///
/// Properties a renderer applies: `opacity`, `hidden` (≥ 0.5 hides), `position`, `bounds`,
/// `anchorPoint`, `transform` and its parts `scale`, `scaleX`, `scaleY`, `rotation`,
/// `translationX`, `translationY`, `rotationY`, `m34` (the parts override the transform's),
/// `backgroundColor`, `cornerRadius` and `blurRadius`. Other properties are ignored.
public struct LayerPresentation: Sendable, Hashable {
    public var opacity: Double
    public var hidden: Bool
    public var position: SceneLayer.Point
    public var bounds: SceneLayer.Rect
    public var anchorPoint: SceneLayer.Point
    public var transform: Transform
    public var backgroundColor: Color?
    public var cornerRadius: Double
    /// Gaussian blur of the layer as drawn (its standard deviation, points; seed 003's
    /// background): 0 is none, at most `maximumBlurRadius`.
    public var blurRadius: Double

    public init(_ layer: SceneLayer, values: [String: Value]) {
        let key = layer.animatedBy ?? layer.id
        // A value with a non-finite component is ignored (the model value shows), and
        // coordinates are clamped to ±maximumCoordinate: any timeline's frame is drawable.
        func v(_ property: String) -> Value? {
            guard let value = values[key + "." + property], value.components.allSatisfy(\.isFinite) else { return nil }
            return value
        }
        func c(_ x: Double) -> Double { min(max(x, -Self.maximumCoordinate), Self.maximumCoordinate) }
        opacity = layer.opacity
        if case .scalar(let o)? = v("opacity") { opacity = min(max(o, 0), 1) }
        hidden = layer.hidden
        if case .scalar(let h)? = v("hidden") { hidden = h >= 0.5 }
        position = layer.position
        if case .point(let x, let y)? = v("position") { position = .init(x: c(x), y: c(y)) }
        bounds = layer.bounds
        switch v("bounds") {
        case .rect(let x, let y, let w, let h)?:
            bounds = .init(x: c(x), y: c(y), width: c(max(w, 0)), height: c(max(h, 0)))
        case .size(let w, let h)?:
            bounds.width = c(max(w, 0))
            bounds.height = c(max(h, 0))
        default: break
        }
        anchorPoint = layer.anchorPoint
        if case .point(let x, let y)? = v("anchorPoint") { anchorPoint = .init(x: x, y: y) }
        transform = .identity
        if case .transform(let t)? = v("transform") {
            transform = t
            transform.translationX = c(t.translationX)
            transform.translationY = c(t.translationY)
        }
        if case .scalar(let s)? = v("scale") {
            transform.scaleX = s
            transform.scaleY = s
        }
        if case .scalar(let s)? = v("scaleX") { transform.scaleX = s }
        if case .scalar(let s)? = v("scaleY") { transform.scaleY = s }
        if case .scalar(let r)? = v("rotation") { transform.rotation = r }
        if case .scalar(let t)? = v("translationX") { transform.translationX = c(t) }
        if case .scalar(let t)? = v("translationY") { transform.translationY = c(t) }
        if case .scalar(let r)? = v("rotationY") { transform.rotationY = r }
        if case .scalar(let m)? = v("m34") { transform.m34 = m }
        backgroundColor = layer.backgroundColor
        if case .color(let c)? = v("backgroundColor") { backgroundColor = c }
        cornerRadius = layer.cornerRadius
        if case .scalar(let r)? = v("cornerRadius") { cornerRadius = c(max(r, 0)) }
        // A blur's standard deviation in points, bounded so that a frame stays cheap to draw.
        blurRadius = 0
        if case .scalar(let r)? = v("blurRadius") { blurRadius = min(max(r, 0), Self.maximumBlurRadius) }
    }

    /// Largest animated coordinate a renderer is given, in points (far beyond any screen).
    public static let maximumCoordinate = 1_000_000.0

    /// Largest blur radius a renderer applies, in points (beyond it a blur is a flat colour).
    public static let maximumBlurRadius = 250.0

    /// Whether anything of the layer (and its subtree) can show.
    public var isVisible: Bool { !hidden && opacity > 0 }
}

extension Timeline {
    /// A frame's values keyed `layer.property`, as a scene renderer reads them.
    public func keyedValues(_ frame: Frame) -> [String: Value] {
        var result: [String: Value] = [:]
        for (slot, value) in zip(slots, frame.values) { result[slot.key] = value }
        return result
    }
}
