import CLoadGenerator
import CurtainctlSupport
import JSON

#if canImport(Glibc)
import Glibc
#endif

enum LoadError: Error, CustomStringConvertible {
    case usage(String)
    case system(String, Int32)
    case daemon(String)
    case timeout(String)

    var description: String {
        switch self {
        case .usage(let why): "usage: \(why)"
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .daemon(let why): "the daemon: \(why)"
        case .timeout(let what): "timed out waiting for \(what)"
        }
    }
}

/// CLOCK_BOOTTIME in nanoseconds: the clock curtaind's times count on (Swift's
/// ContinuousClock on Linux), so an event's time plus the daemon's clock origin compares
/// directly with an arrival time read here.
enum Time {
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// Percentiles of a sample, nearest rank.
struct Summary {
    var values: [Double]

    init(_ values: [Double]) { self.values = values.sorted() }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(values.count)).rounded(.up)) - 1
        return values[min(max(rank, 0), values.count - 1)]
    }

    /// p50, p99 and max in the unit the values are in, rounded to 0.01 (frame lateness in ms:
    /// 10 µs, finer than the changes measured).
    func json(prefix: String = "") -> [String: JSONValue] {
        func round(_ v: Double) -> JSONValue { v.isNaN ? .null : .float((v * 100).rounded() / 100) }
        return [
            "\(prefix)p50": round(percentile(50)), "\(prefix)p99": round(percentile(99)),
            "\(prefix)max": round(values.last ?? .nan), "\(prefix)count": .int(Int64(values.count)),
        ]
    }
}

/// Byte-level lookups in one reply, which is NUL-terminated (so strtod stops at its end).
extension UnsafeRawBufferPointer {
    func range(of needle: StaticString) -> Range<Int>? {
        guard let base = baseAddress, let found = load_memmem(base, count, needle.utf8Start, needle.utf8CodeUnitCount)
        else { return nil }
        let start = base.distance(to: found)
        return start..<(start + needle.utf8CodeUnitCount)
    }

    func contains(_ needle: StaticString) -> Bool { range(of: needle) != nil }

    /// The number right after `key` (e.g. `"frame":`).
    func number(after key: StaticString) -> Double? {
        guard let r = range(of: key) else { return nil }
        return strtod((baseAddress! + r.upperBound).assumingMemoryBound(to: CChar.self), nil)
    }
}

/// CPU time (user + system) a process has used, in seconds.
func cpuSeconds(of pid: Int32) -> Double? {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 4096)
    guard fgets(&line, Int32(line.count), file) != nil else { return nil }
    let text = String(cString: line)
    // Fields after the command (which may hold spaces) start after the last ')'.
    guard let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// One line of JSON on stdout, written at once (a pipe reader may be waiting for it).
func printJSON(_ object: [String: JSONValue]) {
    writeAll(1, JSONWriter.string(.object(object), sortedKeys: true) + "\n")
}
