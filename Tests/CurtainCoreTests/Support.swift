import Testing

@testable import CurtainCore

/// |a − b| ≤ tolerance, with both numbers in the failure message.
func expectClose(
    _ a: Double,
    _ b: Double,
    _ tolerance: Double = 1e-9,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        abs(a - b) <= tolerance,
        "\(a) vs \(b) (tolerance \(tolerance)) \(comment?.description ?? "")",
        sourceLocation: sourceLocation
    )
}

func parse(_ text: String) throws -> TimingFunction { try TimingFunction(parsing: text) }

/// The parse error's message for `text`, or nil if it parsed.
func parseError(_ text: String) -> String? {
    do {
        _ = try TimingFunction(parsing: text)
        return nil
    } catch { return error.description }
}

extension Value {
    var scalarValue: Double? { if case .scalar(let v) = self { v } else { nil } }
}

extension Frame {
    func scalar(_ timeline: Timeline, _ layer: String, _ property: String) -> Double {
        values[timeline.slotIndex(layer: layer, property: property)!].scalarValue!
    }
}
