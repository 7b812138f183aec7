import CSystemd
import CurtainctlSupport
import JSON
import Systemd

#if canImport(Glibc)
import Glibc
#endif

/// curtain-load: the load generator of `make bench`, a process apart from curtaind.
///
///   curtain-load ping       --socket PATH --count N
///   curtain-load launch     --socket PATH --count N --app NAME --go FIFO --sent FIFO
///   curtain-load frames     --socket PATH --observers N --launches K --app NAME --pid DAEMON_PID
///   curtain-load hold       --socket PATH --observers N [--frames] [--stall]
///   curtain-load throughput --socket PATH --count N --app NAME
///   curtain-load soak       --socket PATH --observers N --seconds S --interval MS --app NAME (a line when launching starts)
///   curtain-load app        [--go FIFO --sent FIFO]     (the app curtaind spawns)
///
/// Prints one JSON object (hold: one line once its observers are registered); exit 1 with one
/// line on stderr when a scenario cannot run.
let usage =
    "curtain-load ping|launch|frames|hold|throughput|soak|app [--socket PATH] [--count N] [--observers N] [--launches K] [--app NAME] [--go FIFO --sent FIFO] [--pid PID] [--seconds S] [--interval MS] [--frames] [--stall]"

/// The app: ready at once, or — with --go/--sent — when told, reporting when it sent READY=1.
/// sd_notify_barrier makes curtaind take READY=1 before it sees this process exit.
func runApp(_ options: [String: String]) throws(LoadError) {
    if let go = options["go"], let sent = options["sent"] {
        _ = try Fifo.read(go)
        let now = Time.now()
        sd_notify(0, "READY=1")
        try Fifo.write(sent, "\(now)\n")
    } else {
        sd_notify(0, "READY=1")
    }
    _ = sd_notify_barrier(0, 5_000_000)
}

func parse(_ arguments: ArraySlice<String>) throws(LoadError) -> [String: String] {
    var options: [String: String] = [:]
    var rest = arguments
    while let argument = rest.popFirst() {
        guard argument.hasPrefix("--") else { throw .usage("unexpected '\(argument)'") }
        let key = String(argument.dropFirst(2))
        if key == "frames" || key == "stall" {
            options[key] = "1"
            continue
        }
        guard let value = rest.popFirst() else { throw .usage("\(argument) needs a value") }
        options[key] = value
    }
    return options
}

func run() throws(LoadError) {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2 else { throw .usage(usage) }
    let options = try parse(arguments.dropFirst(2))
    if arguments[1] == "app" { return try runApp(options) }
    OpenFileLimit.raiseToHardLimit()
    func int(_ key: String, _ fallback: Int? = nil) throws(LoadError) -> Int {
        guard let text = options[key] else {
            if let fallback { return fallback }
            throw .usage("--\(key) is required")
        }
        guard let value = Int(text), value > 0 else {
            throw .usage("--\(key) must be a positive integer, not '\(text)'")
        }
        return value
    }
    func string(_ key: String) throws(LoadError) -> String {
        guard let value = options[key] else { throw .usage("--\(key) is required") }
        return value
    }
    let scenarios = Scenarios(socket: try string("socket"))
    switch arguments[1] {
    case "ping": printJSON(try scenarios.ping(count: try int("count")))
    case "launch":
        printJSON(
            try scenarios.launch(
                count: try int("count"),
                app: try string("app"),
                go: try string("go"),
                sent: try string("sent")
            )
        )
    case "frames":
        printJSON(
            try scenarios.frames(
                observers: try int("observers"),
                launches: try int("launches", 3),
                app: try string("app"),
                daemon: Int32(try int("pid"))
            )
        )
    case "hold":
        try scenarios.hold(
            observers: try int("observers"),
            frames: options["frames"] != nil,
            stall: options["stall"] != nil
        )
    case "throughput": printJSON(try scenarios.throughput(count: try int("count"), app: try string("app")))
    case "soak":
        printJSON(
            try scenarios.soak(
                observers: try int("observers"),
                seconds: try int("seconds"),
                interval: try int("interval", 100),
                app: try string("app")
            )
        )
    default: throw .usage(usage)
    }
}

do {
    try run()
} catch {
    writeAll(2, "curtain-load: \(error)\n")
    exit(error.isUsage ? 2 : 1)
}

extension LoadError {
    var isUsage: Bool { if case .usage = self { true } else { false } }
}
