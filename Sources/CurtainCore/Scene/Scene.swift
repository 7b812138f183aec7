/// What the overlay is made of: an ordered layer tree in Core Animation terms (docs/scene.md).
///
/// A `Scene` is a `*.scene.json` document with its expressions evaluated (the renderer binds
/// `screen.width` and `screen.height`). The ids are the ones timelines animate (`splash`,
/// `logo`, `mask`, `window`, …); frame values apply on top of the model values kept here.
/// Pure: asset paths are checked for shape here and opened by the renderer.
public struct Scene: Sendable, Hashable {
    public var name: String
    public var description: String?
    /// Bottom to top (stacking order).
    public var layers: [SceneLayer]
    /// The parameters the scene was resolved with (declared defaults and given values).
    public var parameters: [String: Double]

    /// Explicit limits; a document over them is rejected with the limit named.
    public enum Limits {
        /// Largest scene document, in bytes.
        public static let documentSize = 256 * 1024
        /// Layers in the whole tree (sublayers count).
        public static let layers = 256
        /// Deepest sublayer nesting (top-level layers are depth 1).
        public static let depth = 16
        /// Largest absolute coordinate or size of bounds, positions and radii, in points.
        public static let coordinate = 16384.0
        /// Longest text of a text layer (each variant), in UTF-8 bytes.
        public static let textBytes = 1024
        /// Most text variants of one layer.
        public static let variants = 64
        /// Largest asset file (PNG or SVG), in bytes.
        public static let assetBytes = 8 * 1024 * 1024
        /// Largest image width and height, in pixels.
        public static let imageDimension = 8192
        /// Longest SVG path data, in bytes.
        public static let pathBytes = 64 * 1024
        public static let parameters = 64
        /// Most colour stops of a gradient.
        public static let gradientStops = 32
    }

    /// Every layer of the tree, depth first, bottom to top.
    public var allLayers: [SceneLayer] {
        var result: [SceneLayer] = []
        func walk(_ layers: [SceneLayer]) {
            for layer in layers {
                result.append(layer)
                walk(layer.sublayers)
            }
        }
        walk(layers)
        return result
    }

    /// The layer with `id`, wherever it is in the tree.
    public func layer(_ id: String) -> SceneLayer? { allLayers.first { $0.id == id } }

    /// Ids of the layers some other layer uses as its mask (these are not drawn themselves).
    public var maskLayerIDs: Set<String> { Set(allLayers.compactMap { $0.mask?.layer }) }

    /// Asset paths (relative to the scene file) the scene's layers name, each once, in order.
    public var assetPaths: [String] {
        var seen = Set<String>()
        var result: [String] = []
        for layer in allLayers { if let path = layer.contents, seen.insert(path).inserted { result.append(path) } }
        return result
    }
}

public struct SceneLayer: Sendable, Hashable {
    /// `destination` is the app's window: the overlay never paints it, it clears the part of
    /// itself where the app shows (docs/scene.md, "The destination rule").
    public enum Role: String, Sendable, Hashable, CaseIterable { case overlay, destination }

    /// How `contents` fits the bounds (Core Animation's `contentsGravity`).
    public enum Gravity: String, Sendable, Hashable, CaseIterable {
        case resize, resizeAspect, resizeAspectFill, center, top, bottom, left, right
        case topLeft, topRight, bottomLeft, bottomRight
    }

    public enum FillRule: String, Sendable, Hashable, CaseIterable {
        case nonZero = "nonzero"
        case evenOdd = "evenodd"
    }

    public enum Alignment: String, Sendable, Hashable, CaseIterable { case left, center, right }

    public struct Point: Sendable, Hashable {
        public var x: Double, y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    public struct Rect: Sendable, Hashable {
        public var x: Double, y: Double, width: Double, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// A linear gradient (`CAGradientLayer`): points in the unit square of the bounds.
    public struct Gradient: Sendable, Hashable {
        public var colors: [Color]
        public var locations: [Double]
        public var startPoint: Point
        public var endPoint: Point
    }

    public struct Text: Sendable, Hashable {
        /// One string, or the variants a launch chooses from by its `text_variant`.
        public var variants: [String]
        public var font: String
        public var fontSize: Double
        public var color: Color
        public var alignment: Alignment

        /// The variant shown for a launch's `text_variant` (wrapping round the list).
        public func string(variant: Int) -> String {
            let count = variants.count
            return variants[((variant % count) + count) % count]
        }
    }

    public struct Mask: Sendable, Hashable {
        public var layer: String
        /// true: the layer shows outside the mask's shape (a hole) instead of inside it.
        public var inverted: Bool
    }

    public var id: String
    /// Whose animated values the layer shows: its own id by default. Two layers may show one
    /// timeline id in two places (seed 000's logo is the splash's logo in the appear and the
    /// view under the hole, inside the app's window, in the reveal).
    public var animatedBy: String?
    public var role: Role = .overlay
    public var bounds: Rect
    /// In the superlayer's coordinates; by default the layer's frame starts at (0, 0).
    public var position: Point
    public var anchorPoint = Point(x: 0.5, y: 0.5)
    public var opacity = 1.0
    public var hidden = false
    public var backgroundColor: Color?
    public var gradient: Gradient?
    public var cornerRadius = 0.0
    /// An image asset (.svg or .png), relative to the scene file.
    public var contents: String?
    public var contentsGravity = Gravity.resize
    public var path: PathData?
    public var fillColor: Color?
    public var fillRule = FillRule.nonZero
    public var text: Text?
    public var mask: Mask?
    /// The layer shows what was on screen before the transition (Plymouth's retain): a
    /// renderer given the previous screen draws it in place of the layer's own content, which
    /// is then only a stand-in (seed 003 blurs it).
    public var retained = false
    /// A hero element of the splash (seed 004): the `hero` reveal pairs it by this id with the
    /// app's elements; the layer shows the values of timeline layer `hero.<heroID>`.
    public var heroID: String?
    /// The element's own Hero modifiers (fade, scale, translate, delay, duration, timing).
    public var heroModifiers: Hero.ElementModifiers?
    public var sublayers: [SceneLayer] = []

    public init(id: String, bounds: Rect, position: Point) {
        self.id = id
        self.bounds = bounds
        self.position = position
    }
}
