/// SVG path data (`d`), parsed once into absolute move/line/cubic/close commands, so a
/// renderer replays it with its own path API (cairo's move_to, line_to, curve_to, close_path).
///
/// Supports M L H V C S Q T Z in absolute and relative forms (quadratics become cubics).
/// Elliptical arcs (A) are refused with a precise error: write them as cubics.
public struct PathData: Sendable, Hashable {
    public enum Command: Sendable, Hashable {
        case move(x: Double, y: Double)
        case line(x: Double, y: Double)
        case cubic(x1: Double, y1: Double, x2: Double, y2: Double, x: Double, y: Double)
        case close
    }

    public let commands: [Command]

    public init(parsing text: String) throws(SceneError) {
        guard text.utf8.count <= Scene.Limits.pathBytes else {
            throw SceneError(
                "",
                "path data is \(text.utf8.count) bytes, more than the limit of \(Scene.Limits.pathBytes)"
            )
        }
        var parser = PathParser(bytes: Array(text.utf8))
        commands = try parser.parse()
    }
}

private struct PathParser {
    let bytes: [UInt8]
    var index = 0
    var commands: [PathData.Command] = []
    var current = (x: 0.0, y: 0.0), start = (x: 0.0, y: 0.0)
    /// The last control point, for S and T reflections.
    var lastCubic: (x: Double, y: Double)? = nil
    var lastQuad: (x: Double, y: Double)? = nil

    func error(_ message: String) -> SceneError { SceneError("", "path data at byte \(index + 1): \(message)") }

    mutating func skipSeparators() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D, 0x2C].contains(bytes[index]) { index += 1 }
    }

    mutating func number() throws(SceneError) -> Double {
        skipSeparators()
        let begin = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        var dot = false
        while index < bytes.count {
            let c = bytes[index]
            if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                digits += 1
                index += 1
            } else if c == UInt8(ascii: "."), !dot {
                dot = true
                index += 1
            } else {
                break
            }
        }
        if digits > 0, index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
        }
        guard digits > 0, let value = Double(String(decoding: bytes[begin..<index], as: UTF8.self)), value.isFinite
        else {
            index = begin
            throw error("expected a number")
        }
        return value
    }

    /// True when another number follows (an implicit repetition of the last command).
    mutating func numberFollows() -> Bool {
        skipSeparators()
        guard index < bytes.count else { return false }
        let c = bytes[index]
        return (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
            || c == UInt8(ascii: ".")
    }

    mutating func parse() throws(SceneError) -> [PathData.Command] {
        skipSeparators()
        guard index < bytes.count else { throw error("is empty") }
        while true {
            skipSeparators()
            guard index < bytes.count else { break }
            let letter = bytes[index]
            let command = Character(Unicode.Scalar(letter))
            if commands.isEmpty, command != "M", command != "m" {
                throw error("must start with M or m, not '\(command)'")
            }
            index += 1
            try segment(command)
        }
        return commands
    }

    mutating func point(relative: Bool) throws(SceneError) -> (x: Double, y: Double) {
        let x = try number()
        let y = try number()
        return relative ? (current.x + x, current.y + y) : (x, y)
    }

    mutating func segment(_ command: Character) throws(SceneError) {
        let relative = command.isLowercase
        var first = true
        repeat {
            var cubicControl: (x: Double, y: Double)? = nil
            var quadControl: (x: Double, y: Double)? = nil
            switch command.uppercased() {
            case "M":
                let p = try point(relative: relative)
                // Pairs after the first are implicit line-tos (SVG 1.1, 8.3.2).
                commands.append(first ? .move(x: p.x, y: p.y) : .line(x: p.x, y: p.y))
                if first { start = p }
                current = p
            case "L":
                let p = try point(relative: relative)
                commands.append(.line(x: p.x, y: p.y))
                current = p
            case "H":
                let x = try number()
                current.x = relative ? current.x + x : x
                commands.append(.line(x: current.x, y: current.y))
            case "V":
                let y = try number()
                current.y = relative ? current.y + y : y
                commands.append(.line(x: current.x, y: current.y))
            case "C":
                let c1 = try point(relative: relative)
                let c2 = try point(relative: relative)
                let p = try point(relative: relative)
                commands.append(.cubic(x1: c1.x, y1: c1.y, x2: c2.x, y2: c2.y, x: p.x, y: p.y))
                current = p
                cubicControl = c2
            case "S":
                let c1 = lastCubic.map { (2 * current.x - $0.x, 2 * current.y - $0.y) } ?? current
                let c2 = try point(relative: relative)
                let p = try point(relative: relative)
                commands.append(.cubic(x1: c1.0, y1: c1.1, x2: c2.x, y2: c2.y, x: p.x, y: p.y))
                current = p
                cubicControl = c2
            case "Q":
                let q = try point(relative: relative)
                let p = try point(relative: relative)
                appendQuadratic(q, p)
                quadControl = q
            case "T":
                let q = lastQuad.map { (x: 2 * current.x - $0.x, y: 2 * current.y - $0.y) } ?? current
                let p = try point(relative: relative)
                appendQuadratic(q, p)
                quadControl = q
            case "Z":
                commands.append(.close)
                current = start
                lastCubic = nil
                lastQuad = nil
                return
            case "A":
                index -= 1
                throw error("elliptical arcs (A) are not supported; write the curve with C")
            default:
                index -= 1
                throw error("unknown command '\(command)'")
            }
            lastCubic = cubicControl
            lastQuad = quadControl
            first = false
        } while numberFollows()
    }

    mutating func appendQuadratic(_ q: (x: Double, y: Double), _ p: (x: Double, y: Double)) {
        // The cubic with the same curve: controls two thirds of the way to the quadratic's.
        let c1 = (x: current.x + 2 / 3 * (q.x - current.x), y: current.y + 2 / 3 * (q.y - current.y))
        let c2 = (x: p.x + 2 / 3 * (q.x - p.x), y: p.y + 2 / 3 * (q.y - p.y))
        commands.append(.cubic(x1: c1.x, y1: c1.y, x2: c2.x, y2: c2.y, x: p.x, y: p.y))
        current = p
    }
}
