import CurtainConfig
import CurtainDaemon
import Foundation
import Varlink

/// libFuzzer entry: each input is one Varlink call as the wire carries it (JSON), handed to
/// curtaind's real io.curtain.Launcher and io.curtain.App bindings through `VarlinkService`,
/// as root (so authorization lets it reach every handler). Calls the type checker refuses
/// stop there; typed ones with hostile values (1e-300, 1e308, -0.0, huge ids, odd routes)
/// reach the handlers, the driver and the coordinator. Any trap is a finding.
///
/// Each input gets a fresh service (no state carries over from one input to the next) with
/// one launch in flight, so ids, Control and Watch's snapshot have something to act on. A
/// streaming call is cancelled at once: it runs up to its stream, then ends (ShuttingDown).
nonisolated(unsafe) var configuration: Configuration!

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutableRawPointer) -> CInt {
    let path = ProcessInfo.processInfo.environment["CURTAIN_FUZZ_CONFIG"] ?? "config/curtain.toml"
    do {
        configuration = try Configuration(toml: try String(contentsOfFile: path, encoding: .utf8), file: path)
    } catch {
        fatalError("LauncherFuzz: cannot load \(path) (run from the repository, or set CURTAIN_FUZZ_CONFIG): \(error)")
    }
    return 0
}

let root = PeerCredentials(pid: 1, uid: 0, gid: 0)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    // Two readings of an input: JSON text (the seeds; what the wire carries), or — starting
    // with 0xFF — bytes a generator turns into a typed call. The generator reaches extreme
    // values at once (a random bit pattern is a tiny or huge double about half the time),
    // which coverage alone never steers text towards: 0.1 and 1e-300 take the same branches.
    var decoded: VarlinkCall?
    if size > 0, input[0] == 0xFF {
        var typed = TypedCall(input.dropFirst())
        decoded = typed.call()
    } else {
        decoded = try? VarlinkCall(decoding: input)
    }
    guard let call = decoded, call.method.hasPrefix("io.curtain.") else { return 0 }
    let service: VarlinkService
    do { service = try DetachedBindings.service(configuration) } catch {
        fatalError("the built-in interfaces do not parse: \(error)")
    }
    run(service, VarlinkCall(method: "io.curtain.Launcher.Launch", parameters: ["route": ["normal": "shop"]]))
    run(service, call)
    return 0
}

/// Runs one call to its end (a stream is cancelled first) on the concurrency pool, while the
/// fuzzer's thread waits — until the call's task has ended and let go of the service, so that
/// a leak check after the input never sees a service the task is still releasing.
func run(_ service: VarlinkService, _ call: VarlinkCall) {
    let done = DispatchSemaphore(value: 0)
    let task = Task { await service.handle(call, peer: root) { _ in } }
    if call.more { task.cancel() }
    Task {
        await task.value
        done.signal()
    }
    done.wait()
}

/// Makes a typed call of io.curtain.Launcher or io.curtain.App from bytes: the method, then
/// each parameter present or not, numbers as raw bit patterns, integers, or edge values.
struct TypedCall {
    var bytes: Slice<UnsafeBufferPointer<UInt8>>
    init(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) { self.bytes = bytes }

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
    mutating func bit() -> Bool { byte() & 1 == 1 }
    mutating func bits() -> UInt64 { (0..<8).reduce(0) { value, _ in value << 8 | UInt64(byte()) } }

    static let edges: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.0999, 1000, 1000.001, 1e-300, 1e-18, 4.9e-324, 1e308, 1.7976931348623157e308,
        100_000, 100_000.5, -100_000.5, 9.3e18, -9.3e18, .nan, .infinity, -.infinity,
    ]
    static let intEdges: [Int64] = [0, 1, 2, -1, .max, .min, Int64(Int32.max), 1 << 53]

    mutating func number() -> JSONValue {
        switch byte() % 4 {
        case 0: .float(Double(bitPattern: bits()))
        case 1: .int(Int64(bitPattern: bits()))
        case 2: .float(Self.edges[Int(byte()) % Self.edges.count])
        default: .int(Self.intEdges[Int(byte()) % Self.intEdges.count])
        }
    }
    mutating func id() -> JSONValue {
        switch byte() % 3 {
        case 0: .int(1)
        case 1: .int(Int64(bitPattern: bits()))
        default: .int(Self.intEdges[Int(byte()) % Self.intEdges.count])
        }
    }
    mutating func string() -> String {
        let words = [
            "shop", "chat", "settings", "shop://product/42", "chat://thread/1", "%00", "", "x://", "product", "logo",
        ]
        if bit() { return words[Int(byte()) % words.count] }
        return String(decoding: (0..<Int(byte() % 24)).map { _ in byte() }, as: UTF8.self)
    }
    mutating func route() -> JSONValue {
        var route: [String: JSONValue] = [:]
        switch byte() % 4 {
        case 0: route["normal"] = .string(string())
        case 1: route["deeplink"] = .string(string())
        case 2:
            route["push"] = .object([
                "app": .string(string()), "n": number(), "deep": .array([number(), .object(["k": .string(string())])]),
            ])
            if bit() { route["push_app"] = .string(string()) }
        default: route = ["normal": .string(string()), "deeplink": .string(string())]  // two at once
        }
        return .object(route)
    }
    mutating func frame() -> JSONValue {
        .object(["x": number(), "y": number(), "width": number(), "height": number()])
    }

    mutating func call() -> VarlinkCall {
        var p: [String: JSONValue] = [:]
        let more = bit()
        let method: String
        switch byte() % 13 {
        case 0:
            method = "io.curtain.Launcher.Watch"
            if bit() { p["launch"] = id() }
            if bit() { p["frames"] = .bool(bit()) }
            if bit() { p["fps"] = number() }
        case 1:
            method = "io.curtain.Launcher.Control"
            p["id"] = id()
            p["action"] = .string(["seek", "pause", "resume", "finish", "cancel"][Int(byte()) % 5])
            if bit() { p["progress"] = number() }
        case 2:
            method = "io.curtain.Launcher.Get"
            p["id"] = id()
        case 3:
            method = "io.curtain.Launcher.Launch"
            p["route"] = route()
            if bit() { p["policy"] = .string(["retarget", "queue", "replace", "ignore"][Int(byte()) % 4]) }
            if bit() { p["frames"] = .bool(bit()) }
        case 4:
            method = "io.curtain.Launcher.Resolve"
            p["route"] = route()
        case 5:
            method = "io.curtain.App.Ready"
            p["launch"] = id()
            if bit() { p["stage"] = .string(["skeleton", "content", "interactive", "ready"][Int(byte()) % 4]) }
            if bit() { p["status"] = .string(string()) }
            if bit() {
                var elements: [String: JSONValue] = [:]
                for _ in 0..<Int(byte() % 4) { elements[string()] = frame() }
                p["elements"] = .object(elements)
            }
        case 6:
            method = "io.curtain.App.Failed"
            p["launch"] = id()
            p["reason"] = .string(string())
        case 7:
            method = "io.curtain.App.Attach"
            p["app"] = .string(string())
        case 8: method = "io.curtain.Launcher.List"
        case 9: method = "io.curtain.Launcher.GetStatus"
        case 10: method = "io.curtain.Launcher.GetStatistics"
        case 11:
            method = "io.curtain.Launcher.GetScene"
            p["launch"] = id()
        default: method = "io.curtain.Launcher.Ping"
        }
        return VarlinkCall(method: method, parameters: p, more: more)
    }
}
