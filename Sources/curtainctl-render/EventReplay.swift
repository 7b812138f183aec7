import CurtainCore
import CurtainRender
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A recorded `curtainctl launch --follow --frames --json short` stream: one JSON event per
/// line; frames (`kind: frame`) carry `values` ("layer.property" → components), `transition`,
/// `time` and `final`; state changes (`kind: state`) carry `to` and `time`. Other kinds are
/// skipped. Every bad line is refused with its number.
struct EventReplay {
    /// Largest file, longest line, most frames (each limit checked before the work it bounds).
    static let maximumBytes = 16 * 1024 * 1024
    static let maximumLineBytes = 64 * 1024
    static let maximumFrames = 10_000

    struct Frame {
        var time: Double
        var transition: String
        var values: [String: Value]
        var final: Bool
    }

    struct State {
        var time: Double
        var to: String
    }

    var frames: [Frame] = []
    var states: [State] = []
    var launch: Int64? = nil

    /// The time of the first event: replay times are counted from it.
    var origin: Double = .infinity

    init(path: String) throws(RenderError) {
        func fail(_ message: String) -> RenderError { RenderError("\(path): \(message)") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw fail("cannot be read: \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw fail("is not a regular file") }
        guard info.st_size <= Self.maximumBytes else {
            throw fail("is \(info.st_size) bytes, more than the limit of \(Self.maximumBytes) (16 MiB)")
        }
        try self.init(bytes: try readBoundedFile(path, limit: Self.maximumBytes, fail), name: path)
    }

    init(bytes: [UInt8], name: String) throws(RenderError) {
        var number = 0
        var start = 0
        while start < bytes.count {
            number += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            var line = bytes[start..<end]
            start = end + 1
            if line.last == 0x0D { line = line.dropLast() }
            func fail(_ message: String) -> RenderError { RenderError("\(name):\(number): \(message)") }
            guard line.count <= Self.maximumLineBytes else {
                throw fail("the line is \(line.count) bytes, more than the limit of \(Self.maximumLineBytes)")
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let event: JSONValue
            do { event = try JSONParser.parse(line) } catch { throw fail(error.description) }
            guard case .object = event else { throw fail("an event is a JSON object") }
            guard case .string(let kind)? = event["kind"] else { throw fail("no \"kind\" string") }
            guard let time = event["time"]?.number, time.isFinite else { throw fail("no finite \"time\"") }
            if let id = event["launch"] {
                guard case .int(let id) = id else { throw fail("\"launch\" is not an integer") }
                if let launch, launch != id {
                    throw fail("an event of launch \(id) after launch \(launch): record one launch per file")
                }
                launch = id
            }
            origin = min(origin, time)
            switch kind {
            case "frame":
                guard frames.count < Self.maximumFrames else { throw fail("more than \(Self.maximumFrames) frames") }
                guard case .object(let object)? = event["values"] else {
                    throw fail("a frame without a \"values\" object")
                }
                var values: [String: Value] = [:]
                for (key, components) in object {
                    guard case .array(let array) = components else {
                        throw fail("values.\(key): not an array of numbers")
                    }
                    let numbers = array.compactMap(\.number)
                    guard numbers.count == array.count, numbers.allSatisfy(\.isFinite) else {
                        throw fail("values.\(key): not an array of finite numbers")
                    }
                    guard let value = Value(wireKey: key, components: numbers) else {
                        throw fail(
                            "values.\(key): \(numbers.count) components make no value (1 scalar, 2 point or size, 4 rect or colour, 7 (or 5) transform)"
                        )
                    }
                    values[key] = value
                }
                var transition = "frame"
                if let t = event["transition"] {
                    guard case .string(let s) = t else { throw fail("\"transition\" is not a string") }
                    transition = s
                }
                var final = false
                if let f = event["final"] {
                    guard case .bool(let b) = f else { throw fail("\"final\" is not a boolean") }
                    final = b
                }
                frames.append(Frame(time: time, transition: transition, values: values, final: final))
            case "state":
                guard case .string(let to)? = event["to"] else { throw fail("a state event without a \"to\" string") }
                states.append(State(time: time, to: to))
            default:
                continue
            }
        }
        guard !frames.isEmpty else {
            throw RenderError("\(name): no frames (record with `curtainctl launch … --follow --frames --json short`)")
        }
    }

    /// Indices of the frames a contact sheet shows: up to `count` evenly spaced, plus the
    /// first frame after each state change and the last.
    func sheetIndices(count: Int) -> [Int] {
        var chosen = Set<Int>()
        if frames.count <= count {
            chosen = Set(frames.indices)
        } else {
            for i in 0..<count {
                chosen.insert(Int((Double(i) * Double(frames.count - 1) / Double(count - 1)).rounded()))
            }
        }
        for state in states { if let i = frames.firstIndex(where: { $0.time >= state.time }) { chosen.insert(i) } }
        chosen.insert(frames.count - 1)
        return chosen.sorted()
    }

    /// The caption under sheet frame `indices[k]`: its transition, and the states reached
    /// since the previous shown frame (those before the first frame go on the first; after
    /// the last, on the last).
    func captions(_ indices: [Int]) -> [String] {
        indices.enumerated().map { k, i in
            let after = k == 0 ? -Double.infinity : frames[indices[k - 1]].time
            let until = k == indices.count - 1 ? Double.infinity : frames[i].time
            let reached = states.filter { $0.time > after && $0.time <= until }.map(\.to)
            let transition = frames[i].transition + (frames[i].final ? " (final)" : "")
            return reached.isEmpty ? transition : transition + " · " + reached.joined(separator: " → ")
        }
    }
}
