import JSON

extension Scene {
    /// Parses and validates a scene document with `parameters` bound (given values override the
    /// declared defaults; renderers give `screen.width` and `screen.height`). Every error names
    /// where: line:column for JSON syntax, a key path (`layers[2].mask.layer`) otherwise.
    public init(json: some Collection<UInt8>, parameters given: [String: Double] = [:]) throws(SceneError) {
        let bytes = Array(json)
        guard bytes.count <= Limits.documentSize else {
            throw SceneError("", "the document is \(bytes.count) bytes, more than the limit of \(Limits.documentSize)")
        }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            let (line, column) = Self.lineAndColumn(of: error.offset, in: bytes)
            throw SceneError("\(line):\(column)", "JSON syntax error: \(error.message)")
        }
        var reader = SceneReader(parameters: given)
        self = try reader.scene(value)
    }

    /// 1-based line and column (in bytes) of a byte offset.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (Int, Int) {
        var line = 1
        var lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return (line, offset - lineStart + 1)
    }
}

private struct SceneReader {
    var parameters: [String: Double]
    var layerCount = 0
    var ids: [String: String] = [:]  // id → path where declared
    var heroIDs: [String: String] = [:]  // heroID → path where declared

    init(parameters: [String: Double]) { self.parameters = parameters }

    mutating func scene(_ value: JSONValue) throws(SceneError) -> Scene {
        let object = try self.object(value, "", allowed: ["name", "description", "parameters", "layers", "$schema"])
        guard case .string(let name)? = object["name"], !name.isEmpty else {
            throw SceneError("name", "is required: a non-empty string")
        }
        let description = try optionalString(object["description"], "description")
        try bindParameters(object["parameters"])
        guard case .array(let list)? = object["layers"] else {
            throw SceneError("layers", "is required: an array of layers")
        }
        var layers: [SceneLayer] = []
        for (i, layer) in list.enumerated() { layers.append(try self.layer(layer, "layers[\(i)]", depth: 1)) }
        var scene = Scene(name: name, description: description, layers: layers, parameters: parameters)
        try checkMasks(&scene)
        return scene
    }

    mutating func bindParameters(_ value: JSONValue?) throws(SceneError) {
        guard let value else { return }
        guard case .array(let list) = value else {
            throw SceneError("parameters", "must be an array of {name, default}")
        }
        guard list.count <= Scene.Limits.parameters else {
            throw SceneError(
                "parameters",
                "holds \(list.count) parameters, more than the limit of \(Scene.Limits.parameters)"
            )
        }
        for (i, item) in list.enumerated() {
            let path = "parameters[\(i)]"
            let object = try self.object(item, path, allowed: ["name", "default", "description"])
            guard case .string(let name)? = object["name"], !name.isEmpty else {
                throw SceneError("\(path).name", "is required: a non-empty string")
            }
            guard let def = object["default"] else { throw SceneError("\(path).default", "is required") }
            if parameters[name] == nil { parameters[name] = try number(def, "\(path).default") }
        }
        for (name, value) in parameters where !value.isFinite {
            throw SceneError("parameters.\(name)", "\(value) is not a finite number")
        }
    }

    static let layerKeys: Set<String> = [
        "id", "animatedBy", "description", "role", "bounds", "position", "anchorPoint", "opacity", "hidden",
        "backgroundColor", "gradient",
        "cornerRadius", "contents", "contentsGravity", "path", "fillColor", "fillRule", "string", "variants", "font",
        "fontSize", "color", "alignment", "mask", "sublayers", "retained", "heroID", "heroModifiers",
    ]

    mutating func layer(_ value: JSONValue, _ path: String, depth: Int) throws(SceneError) -> SceneLayer {
        guard depth <= Scene.Limits.depth else {
            throw SceneError(path, "is nested \(depth) deep, more than the limit of \(Scene.Limits.depth)")
        }
        layerCount += 1
        guard layerCount <= Scene.Limits.layers else {
            throw SceneError(path, "is layer \(layerCount), more than the limit of \(Scene.Limits.layers)")
        }
        let o = try object(value, path, allowed: Self.layerKeys)
        guard case .string(let id)? = o["id"], !id.isEmpty else {
            throw SceneError("\(path).id", "is required: a non-empty string")
        }
        guard id.utf8.allSatisfy({ $0 > 0x20 && $0 != UInt8(ascii: ".") && $0 < 0x7F }) else {
            throw SceneError(
                "\(path).id",
                "'\(id)' must be printable ASCII without spaces or '.' (frame values are keyed id.property)"
            )
        }
        if let first = ids[id] { throw SceneError("\(path).id", "'\(id)' is already the id of \(first)") }
        ids[id] = path
        _ = try optionalString(o["description"], "\(path).description")
        let animatedBy = try optionalString(o["animatedBy"], "\(path).animatedBy")
        if let animatedBy,
            animatedBy.isEmpty || !animatedBy.utf8.allSatisfy({ $0 > 0x20 && $0 != UInt8(ascii: ".") && $0 < 0x7F })
        {
            throw SceneError(
                "\(path).animatedBy",
                "'\(animatedBy)' must be a layer id: printable ASCII without spaces or '.'"
            )
        }

        let bounds = try rect(o["bounds"], "\(path).bounds")
        var layer = SceneLayer(id: id, bounds: bounds, position: .init(x: 0, y: 0))
        layer.animatedBy = animatedBy
        if let role = try optionalString(o["role"], "\(path).role") {
            guard let r = SceneLayer.Role(rawValue: role) else {
                throw oneOf("\(path).role", role, SceneLayer.Role.allCases.map(\.rawValue))
            }
            layer.role = r
        }
        if let anchor = o["anchorPoint"] {
            layer.anchorPoint = try point(anchor, "\(path).anchorPoint")
            for (c, name) in [(layer.anchorPoint.x, "x"), (layer.anchorPoint.y, "y")] where !(0...1).contains(c) {
                throw SceneError("\(path).anchorPoint.\(name)", "\(c) is not within [0, 1]")
            }
        }
        if let position = o["position"] {
            layer.position = try point(position, "\(path).position")
            try coordinate(layer.position.x, "\(path).position.x")
            try coordinate(layer.position.y, "\(path).position.y")
        } else {
            // Default: the frame's origin at the superlayer's (0, 0).
            layer.position = .init(x: layer.anchorPoint.x * bounds.width, y: layer.anchorPoint.y * bounds.height)
        }
        if let v = o["opacity"] {
            layer.opacity = try number(v, "\(path).opacity")
            guard (0...1).contains(layer.opacity) else {
                throw SceneError("\(path).opacity", "\(layer.opacity) is not within [0, 1]")
            }
        }
        if let v = o["hidden"] {
            guard case .bool(let b) = v else { throw SceneError("\(path).hidden", "must be true or false") }
            layer.hidden = b
        }
        layer.backgroundColor = try optionalColor(o["backgroundColor"], "\(path).backgroundColor")
        if let v = o["gradient"] { layer.gradient = try gradient(v, "\(path).gradient") }
        if let v = o["cornerRadius"] {
            layer.cornerRadius = try number(v, "\(path).cornerRadius")
            guard layer.cornerRadius >= 0 else {
                throw SceneError("\(path).cornerRadius", "\(layer.cornerRadius) is negative")
            }
            try coordinate(layer.cornerRadius, "\(path).cornerRadius")
        }
        if let contents = try optionalString(o["contents"], "\(path).contents") {
            try checkAssetPath(contents, "\(path).contents")
            layer.contents = contents
        }
        if let g = try optionalString(o["contentsGravity"], "\(path).contentsGravity") {
            guard let gravity = SceneLayer.Gravity(rawValue: g) else {
                throw oneOf("\(path).contentsGravity", g, SceneLayer.Gravity.allCases.map(\.rawValue))
            }
            layer.contentsGravity = gravity
        }
        if let d = try optionalString(o["path"], "\(path).path") {
            do { layer.path = try PathData(parsing: d) } catch { throw SceneError("\(path).path", error.message) }
        }
        layer.fillColor = try optionalColor(o["fillColor"], "\(path).fillColor")
        if let rule = try optionalString(o["fillRule"], "\(path).fillRule") {
            guard let r = SceneLayer.FillRule(rawValue: rule) else {
                throw oneOf("\(path).fillRule", rule, SceneLayer.FillRule.allCases.map(\.rawValue))
            }
            layer.fillRule = r
        }
        if o["fillColor"] != nil || o["fillRule"] != nil, layer.path == nil {
            throw SceneError(path, "fillColor and fillRule belong to shape layers; add a path")
        }
        layer.text = try text(o, path)
        if let m = o["mask"] {
            let mo = try object(m, "\(path).mask", allowed: ["layer", "inverted"])
            guard case .string(let target)? = mo["layer"], !target.isEmpty else {
                throw SceneError("\(path).mask.layer", "is required: the id of another layer")
            }
            var inverted = false
            if let v = mo["inverted"] {
                guard case .bool(let b) = v else { throw SceneError("\(path).mask.inverted", "must be true or false") }
                inverted = b
            }
            layer.mask = .init(layer: target, inverted: inverted)
        }
        if let v = o["retained"] {
            guard case .bool(let b) = v else { throw SceneError("\(path).retained", "must be true or false") }
            layer.retained = b
        }
        if let hero = try optionalString(o["heroID"], "\(path).heroID") {
            guard !hero.isEmpty, hero.count <= 64,
                hero.utf8.allSatisfy({ $0 > 0x20 && $0 != UInt8(ascii: ".") && $0 < 0x7F })
            else {
                throw SceneError(
                    "\(path).heroID",
                    "'\(hero)' must be 1…64 printable ASCII characters without spaces or '.'"
                )
            }
            guard o["animatedBy"] == nil else {
                throw SceneError("\(path).heroID", "a hero element shows hero.\(hero); remove animatedBy")
            }
            if let first = heroIDs[hero] {
                throw SceneError("\(path).heroID", "'\(hero)' is already the heroID of \(first)")
            }
            heroIDs[hero] = path
            layer.heroID = hero
            layer.animatedBy = "hero." + hero
        }
        if let m = o["heroModifiers"] {
            guard layer.heroID != nil else {
                throw SceneError("\(path).heroModifiers", "belongs to a hero element; add a heroID")
            }
            do { layer.heroModifiers = try Hero.ElementModifiers(json: m, path: "\(path).heroModifiers") } catch {
                throw SceneError(error.path, error.message)
            }
        }
        if layer.role == .destination {
            for key in ["backgroundColor", "gradient", "contents", "path", "string", "variants"] where o[key] != nil {
                throw SceneError(
                    "\(path).\(key)",
                    "a destination layer is painted by the app, never by the overlay; remove '\(key)'"
                )
            }
        }
        if let subs = o["sublayers"] {
            guard case .array(let list) = subs else {
                throw SceneError("\(path).sublayers", "must be an array of layers")
            }
            for (i, sub) in list.enumerated() {
                layer.sublayers.append(try self.layer(sub, "\(path).sublayers[\(i)]", depth: depth + 1))
            }
        }
        return layer
    }

    mutating func text(_ o: [String: JSONValue], _ path: String) throws(SceneError) -> SceneLayer.Text? {
        let textKeys = ["string", "variants", "font", "fontSize", "color", "alignment"]
        guard textKeys.contains(where: { o[$0] != nil }) else { return nil }
        var variants: [String]
        switch (o["string"], o["variants"]) {
        case (.some(let s), nil):
            guard case .string(let text) = s else { throw SceneError("\(path).string", "must be a string") }
            variants = [text]
        case (nil, .some(let v)):
            guard case .array(let list) = v, !list.isEmpty else {
                throw SceneError("\(path).variants", "must be a non-empty array of strings")
            }
            guard list.count <= Scene.Limits.variants else {
                throw SceneError(
                    "\(path).variants",
                    "holds \(list.count) strings, more than the limit of \(Scene.Limits.variants)"
                )
            }
            variants = []
            for (i, item) in list.enumerated() {
                guard case .string(let text) = item else {
                    throw SceneError("\(path).variants[\(i)]", "must be a string")
                }
                variants.append(text)
            }
        case (.some, .some): throw SceneError(path, "has both string and variants; use one")
        case (nil, nil):
            throw SceneError(path, "text keys (font, fontSize, color, alignment) need a string or variants")
        }
        for (i, text) in variants.enumerated() where text.utf8.count > Scene.Limits.textBytes {
            let where_ = o["string"] != nil ? "\(path).string" : "\(path).variants[\(i)]"
            throw SceneError(where_, "is \(text.utf8.count) bytes, more than the limit of \(Scene.Limits.textBytes)")
        }
        let font = try optionalString(o["font"], "\(path).font") ?? "DejaVu Sans"
        var size = 17.0
        if let v = o["fontSize"] {
            size = try number(v, "\(path).fontSize")
            guard size > 0, size <= 1024 else {
                throw SceneError("\(path).fontSize", "\(size) is not within (0, 1024]")
            }
        }
        let color = try optionalColor(o["color"], "\(path).color") ?? Color(red: 0, green: 0, blue: 0)
        var alignment = SceneLayer.Alignment.left
        if let a = try optionalString(o["alignment"], "\(path).alignment") {
            guard let al = SceneLayer.Alignment(rawValue: a) else {
                throw oneOf("\(path).alignment", a, SceneLayer.Alignment.allCases.map(\.rawValue))
            }
            alignment = al
        }
        return .init(variants: variants, font: font, fontSize: size, color: color, alignment: alignment)
    }

    func gradient(_ value: JSONValue, _ path: String) throws(SceneError) -> SceneLayer.Gradient {
        let o = try object(value, path, allowed: ["colors", "locations", "startPoint", "endPoint"])
        guard case .array(let list)? = o["colors"], list.count >= 2 else {
            throw SceneError("\(path).colors", "is required: at least two colours")
        }
        guard list.count <= Scene.Limits.gradientStops else {
            throw SceneError(
                "\(path).colors",
                "holds \(list.count) colours, more than the limit of \(Scene.Limits.gradientStops)"
            )
        }
        var colors: [Color] = []
        for (i, c) in list.enumerated() { colors.append(try color(c, "\(path).colors[\(i)]")) }
        var locations = colors.indices.map { Double($0) / Double(colors.count - 1) }
        if let v = o["locations"] {
            guard case .array(let ls) = v, ls.count == colors.count else {
                throw SceneError("\(path).locations", "must hold one number per colour (\(colors.count))")
            }
            locations = []
            for (i, l) in ls.enumerated() {
                let x = try number(l, "\(path).locations[\(i)]")
                guard (0...1).contains(x), locations.last.map({ x >= $0 }) ?? true else {
                    throw SceneError(
                        "\(path).locations[\(i)]",
                        "\(x) must be within [0, 1] and not less than the one before"
                    )
                }
                locations.append(x)
            }
        }
        let start =
            try o["startPoint"].map { (v) throws(SceneError) in try point(v, "\(path).startPoint") }
            ?? .init(x: 0.5, y: 0)
        let end =
            try o["endPoint"].map { (v) throws(SceneError) in try point(v, "\(path).endPoint") } ?? .init(x: 0.5, y: 1)
        return .init(colors: colors, locations: locations, startPoint: start, endPoint: end)
    }

    /// Asset paths stay inside the scene's directory: relative, no `..`, no empty or `.` parts.
    /// (The renderer also resolves symbolic links and checks the result.)
    func checkAssetPath(_ text: String, _ path: String) throws(SceneError) {
        guard !text.isEmpty, !text.hasPrefix("/") else {
            throw SceneError(path, "'\(text)' must be a path relative to the scene file")
        }
        guard !text.utf8.contains(0), !text.contains("\\") else {
            throw SceneError(path, "'\(text)' holds a NUL or a backslash")
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            throw SceneError(
                path,
                "'\(text)' leaves or wanders the scene's directory ('..', '.' and empty parts are refused)"
            )
        }
        let lower = text.lowercased()
        guard lower.hasSuffix(".svg") || lower.hasSuffix(".png") else {
            throw SceneError(path, "'\(text)' is neither .svg nor .png")
        }
    }

    /// Masks name existing overlay layers, never themselves, never in a cycle (drawing a mask
    /// draws its subtree, whose own masks must be drawable first).
    func checkMasks(_ scene: inout Scene) throws(SceneError) {
        let all = scene.allLayers
        let byID = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for layer in all {
            guard let mask = layer.mask else { continue }
            let path = "\(ids[layer.id] ?? layer.id).mask.layer"
            guard let target = byID[mask.layer] else {
                throw SceneError(
                    path,
                    "unknown layer '\(mask.layer)' (layers: \(byID.keys.sorted().joined(separator: ", ")))"
                )
            }
            guard target.id != layer.id else { throw SceneError(path, "a layer cannot mask itself") }
            guard target.role == .overlay else {
                throw SceneError(path, "'\(target.id)' is a destination layer; the overlay cannot draw it as a mask")
            }
        }
        // Edges: a layer → the masks drawn when it is drawn (its own and its subtree's).
        func masksDrawn(by layer: SceneLayer) -> [String] {
            var result: [String] = []
            func walk(_ l: SceneLayer) {
                if let m = l.mask { result.append(m.layer) }
                l.sublayers.forEach(walk)
            }
            walk(layer)
            return result
        }
        var state: [String: Int] = [:]  // 1 visiting, 2 done
        func visit(_ id: String, _ chain: [String]) throws(SceneError) {
            if state[id] == 2 { return }
            if state[id] == 1 {
                let cycle = chain[(chain.firstIndex(of: id) ?? 0)...] + [id]
                throw SceneError("\(ids[id] ?? id).mask", "masks form a cycle: \(cycle.joined(separator: " → "))")
            }
            state[id] = 1
            if let layer = byID[id] { for next in masksDrawn(by: layer) { try visit(next, chain + [id]) } }
            state[id] = 2
        }
        for layer in all { try visit(layer.id, []) }
    }

    // MARK: values

    func object(_ value: JSONValue, _ path: String, allowed: Set<String>) throws(SceneError) -> [String: JSONValue] {
        guard case .object(let o) = value else { throw SceneError(path, "must be an object") }
        if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw SceneError(
                path.isEmpty ? unknown : "\(path).\(unknown)",
                "unknown key (known: \(allowed.sorted().joined(separator: ", ")))"
            )
        }
        return o
    }

    func optionalString(_ value: JSONValue?, _ path: String) throws(SceneError) -> String? {
        guard let value else { return nil }
        guard case .string(let s) = value else { throw SceneError(path, "must be a string") }
        return s
    }

    func number(_ value: JSONValue, _ path: String) throws(SceneError) -> Double {
        let result: Double
        switch value {
        case .int(let i): result = Double(i)
        case .float(let d): result = d
        case .string(let text):
            do { result = try Expression(parsing: text).evaluate(parameters) } catch {
                throw SceneError(path, error.description)
            }
        default: throw SceneError(path, "must be a number or an expression string")
        }
        guard result.isFinite else { throw SceneError(path, "evaluates to \(result), not a finite number") }
        return result
    }

    func coordinate(_ value: Double, _ path: String) throws(SceneError) {
        guard abs(value) <= Scene.Limits.coordinate else {
            throw SceneError(path, "\(value) is beyond the limit of ±\(Int(Scene.Limits.coordinate)) points")
        }
    }

    func point(_ value: JSONValue, _ path: String) throws(SceneError) -> SceneLayer.Point {
        switch value {
        case .array(let list) where list.count == 2:
            return .init(x: try number(list[0], "\(path)[0]"), y: try number(list[1], "\(path)[1]"))
        case .object:
            let o = try object(value, path, allowed: ["x", "y"])
            guard let x = o["x"], let y = o["y"] else { throw SceneError(path, "needs x and y") }
            return .init(x: try number(x, "\(path).x"), y: try number(y, "\(path).y"))
        default:
            throw SceneError(path, "must be [x, y] or {\"x\", \"y\"}")
        }
    }

    func rect(_ value: JSONValue?, _ path: String) throws(SceneError) -> SceneLayer.Rect {
        guard let value else { throw SceneError(path, "is required: [x, y, width, height] or {\"width\", \"height\"}") }
        var r: SceneLayer.Rect
        switch value {
        case .array(let list) where list.count == 4:
            r = .init(
                x: try number(list[0], "\(path)[0]"),
                y: try number(list[1], "\(path)[1]"),
                width: try number(list[2], "\(path)[2]"),
                height: try number(list[3], "\(path)[3]")
            )
        case .object:
            let o = try object(value, path, allowed: ["x", "y", "width", "height"])
            guard let w = o["width"], let h = o["height"] else { throw SceneError(path, "needs width and height") }
            r = .init(
                x: try o["x"].map { (v) throws(SceneError) in try number(v, "\(path).x") } ?? 0,
                y: try o["y"].map { (v) throws(SceneError) in try number(v, "\(path).y") } ?? 0,
                width: try number(w, "\(path).width"),
                height: try number(h, "\(path).height")
            )
        default:
            throw SceneError(path, "must be [x, y, width, height] or {\"width\", \"height\"} (x, y optional)")
        }
        for (c, name) in [(r.x, "x"), (r.y, "y"), (r.width, "width"), (r.height, "height")] {
            try coordinate(c, "\(path).\(name)")
        }
        guard r.width >= 0, r.height >= 0 else { throw SceneError(path, "width and height must not be negative") }
        return r
    }

    func color(_ value: JSONValue, _ path: String) throws(SceneError) -> Color {
        guard case .string(let text) = value, let color = Color(hex: text) else {
            throw SceneError(path, "\(Self.describe(value)) is not a #rgb, #rgba, #rrggbb or #rrggbbaa colour")
        }
        return color
    }

    func optionalColor(_ value: JSONValue?, _ path: String) throws(SceneError) -> Color? {
        try value.map { (v) throws(SceneError) in try color(v, path) }
    }

    func oneOf(_ path: String, _ given: String, _ options: [String]) -> SceneError {
        SceneError(path, "'\(given)' is not one of \(options.joined(separator: ", "))")
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): "'\(s)'"
        case .int(let i): "\(i)"
        case .float(let d): "\(d)"
        default: "this value"
        }
    }
}
