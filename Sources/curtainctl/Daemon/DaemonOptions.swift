import ArgumentParser
import CurtainctlSupport
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// Options every daemon command takes, as systemctl and resolvectl spell them.
struct DaemonOptions: ParsableArguments {
    enum JSONMode: String, ExpressibleByArgument, CaseIterable {
        case off, short, pretty
    }

    @Option(
        help: ArgumentHelp(
            "The daemon's socket (default: $CURTAIN_SOCKET, then /run/curtain/io.curtain.Launcher, then $XDG_RUNTIME_DIR/curtain/io.curtain.Launcher).",
            valueName: "path"
        )
    )
    var socket: String?

    @Option(help: "Print JSON: off, short (one line per object), pretty.")
    var json: JSONMode = .off

    @Flag(help: "Leave out column headings.")
    var noLegend = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    /// Runs `body` with a connection; maps failures onto the documented exit statuses
    /// (1 the daemon said no, 3 no daemon answered), each reported in one line on stderr.
    func withDaemon<T>(_ body: (inout DaemonClient) throws(DaemonClient.ClientError) -> T) throws -> T {
        var client: DaemonClient
        do { client = try DaemonClient.connect(explicit: socket) } catch {
            fail(error.description, status: 3)
        }
        defer { client.close() }
        do { return try body(&client) } catch {
            fail(error.description, status: 1)
        }
    }

    func print(_ line: String) {
        guard !quiet else { return }
        Swift.print(line)
    }

    /// One JSON value on stdout, in the requested form.
    func printJSON(_ value: JSONValue) {
        Swift.print(json == .pretty ? Pretty.json(value) : JSONWriter.string(value, sortedKeys: true))
    }

    static var isTerminal: Bool { isatty(1) == 1 }
}

func fail(_ message: String, status: Int32) -> Never {
    var stderr = StandardError()
    Swift.print("curtainctl: \(message)", to: &stderr)
    exit(status)
}

/// Indented JSON for humans (keys sorted).
enum Pretty {
    static func json(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .object(let o) where !o.isEmpty:
            let items = o.keys.sorted().map {
                "\(inner)\(JSONWriter.string(.string($0))): \(json(o[$0]!, indent: inner))"
            }
            return "{\n" + items.joined(separator: ",\n") + "\n\(indent)}"
        case .array(let a) where !a.isEmpty:
            return "[\n" + a.map { inner + json($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        default:
            return JSONWriter.string(value, sortedKeys: true)
        }
    }
}

extension JSONValue {
    var text: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .float(let d): String(d)
        case .bool(let b): String(b)
        case .null: "-"
        default: JSONWriter.string(self, sortedKeys: true)
        }
    }
}
