import CurtainctlSupport
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// The terminal view of `watch` and `launch --follow`: one line per launch — id, state,
/// destination, route, elapsed time — and a progress bar for its running transition, redrawn
/// in place at most 20 times a second. Ended launches stay, final.
struct LiveView {
    struct Row {
        var id: String
        var state = "requested"
        var destination = ""
        var route = ""
        var started: Double
        var now: Double
        var transition: String?
        var progress: Double?
    }

    private var rows: [Row] = []
    private var drawn = 0
    private var lastDraw: timespec = timespec()
    let colour = getenv("NO_COLOR") == nil

    mutating func describe(_ launch: JSONValue) {
        guard let id = launch["id"]?.text else { return }
        let index = row(id, at: launch["requested"].flatMap(\.number) ?? 0)
        rows[index].destination =
            "\(launch["destination"]?["app"]?.text ?? "?")/\(launch["destination"]?["screen"]?.text ?? "?")"
        rows[index].route = launch["route"]?.text ?? ""
        rows[index].state = launch["state"]?.text ?? rows[index].state
    }

    mutating func show(_ event: JSONValue) {
        guard let id = event["launch"]?.text else { return }
        let time = event["time"].flatMap(\.number) ?? 0
        let index = row(id, at: time)
        rows[index].now = max(rows[index].now, time)
        switch event["kind"]?.text {
        case "frame":
            rows[index].transition = event["transition"]?.text
            rows[index].progress = event["progress"].flatMap(\.number)
        case "destination":
            rows[index].destination =
                "\(event["destination"]?["app"]?.text ?? "?")/\(event["destination"]?["screen"]?.text ?? "?")"
        default:
            rows[index].state = event["to"]?.text ?? rows[index].state
            if ["holding", "revealed", "failed", "cancelled"].contains(rows[index].state) {
                rows[index].transition = nil
            }
        }
        let ended = ["revealed", "failed", "cancelled"].contains(rows[index].state)
        draw(force: event["kind"]?.text != "frame" || ended)
    }

    private mutating func row(_ id: String, at time: Double) -> Int {
        if let index = rows.firstIndex(where: { $0.id == id }) { return index }
        rows.append(Row(id: id, started: time, now: time))
        return rows.count - 1
    }

    /// Redraws (in place) unless the last draw was under 50 ms ago and nothing important changed.
    mutating func draw(force: Bool = false) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let since = Double(now.tv_sec - lastDraw.tv_sec) + Double(now.tv_nsec - lastDraw.tv_nsec) / 1e9
        guard force || since >= 0.05 else { return }
        lastDraw = now
        var out = drawn > 0 ? "\u{1B}[\(drawn)A" : ""
        for row in rows {
            let elapsed = Int(((row.now - row.started) * 1000).rounded())
            var bar = ""
            if let transition = row.transition, let progress = row.progress {
                let filled = Int((progress * 20).rounded())
                bar =
                    " \(transition) [" + String(repeating: "#", count: filled)
                    + String(repeating: "-", count: 20 - filled) + "] \(Int((progress * 100).rounded()))%"
            }
            let state = colour ? paint(row.state) : row.state
            out += "\u{1B}[2K#\(row.id)  \(state)  \(row.destination)  \(row.route)  +\(elapsed) ms\(bar)\n"
        }
        drawn = rows.count
        writeAll(1, out)
    }

    private func paint(_ state: String) -> String {
        let code =
            switch state {
            case "revealed": "32"
            case "failed": "31"
            case "cancelled": "33"
            default: "1"
            }
        return "\u{1B}[\(code)m\(state)\u{1B}[0m"
    }
}
