import CurtainCore
import JSON

/// The elements an app reports for the reveal (X_CURTAIN_ELEMENTS, io.curtain.App's `elements`):
/// element id → frame, with Hero's modifiers.
typealias ReportedElements = [String: Hero.Element]

/// Reading a report: the JSON object both channels carry (the notify key and the Varlink
/// parameter), checked once here — ids, finite numbers within WireLimits, a bounded count;
/// each channel says what a refusal means in its own terms (`Wire.elements`: InvalidParameter).
enum ReportedElementsReader {
    /// Most elements one report may carry.
    static let maximumElements = 32

    /// The value that was refused, named as a parameter path ("elements.logo.width").
    struct Refusal: Error, Equatable {
        let parameter: String
    }

    /// Nothing (not an object) reads as no elements.
    static func read(_ value: JSONValue?) throws(Refusal) -> ReportedElements {
        guard case .object(let object)? = value else { return [:] }
        guard object.count <= maximumElements else { throw Refusal(parameter: "elements") }
        var result: ReportedElements = [:]
        for (id, frame) in object {
            guard (1...64).contains(id.utf8.count),
                id.utf8.allSatisfy({
                    $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
                })
            else {
                throw Refusal(parameter: "elements")
            }
            func number(_ key: String, _ range: ClosedRange<Double>) throws(Refusal) -> Double {
                guard case let n? = frame[key]?.number, n.isFinite, range.contains(n) else {
                    throw Refusal(parameter: "elements.\(id).\(key)")
                }
                return n
            }
            let f = Hero.Frame(
                x: try number("x", WireLimits.elementCoordinate),
                y: try number("y", WireLimits.elementCoordinate),
                width: try number("width", WireLimits.elementSize),
                height: try number("height", WireLimits.elementSize)
            )
            // Hero's modifiers for this element (seed 004), as a scene's heroModifiers.
            var modifiers = Hero.ElementModifiers()
            if let given = frame["modifiers"], given != .null {
                do { modifiers = try Hero.ElementModifiers(json: given, path: "elements.\(id).modifiers") } catch {
                    throw Refusal(parameter: error.path)
                }
            }
            result[id] = Hero.Element(f, modifiers: modifiers)
        }
        return result
    }
}
