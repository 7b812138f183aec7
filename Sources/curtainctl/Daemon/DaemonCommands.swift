import ArgumentParser
import CurtainctlSupport
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// `curtainctl ping`: one round trip, timed.
struct PingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Check that curtaind answers, and how fast."
    )
    @OptionGroup var options: DaemonOptions

    static func roundTrip(_ client: inout DaemonClient) throws(DaemonClient.ClientError) -> (String, Int) {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        _ = try client.call("io.curtain.Launcher.Ping")
        clock_gettime(CLOCK_MONOTONIC, &end)
        return (client.path, (end.tv_sec - start.tv_sec) * 1_000_000 + (end.tv_nsec - start.tv_nsec) / 1000)
    }

    func run() throws {
        let (path, micros) = try options.withDaemon { client throws(DaemonClient.ClientError) in
            try Self.roundTrip(&client)
        }
        if options.json != .off {
            return options.printJSON(["socket": .string(path), "round_trip_usec": .int(Int64(micros))])
        }
        options.print("pong from \(path) in \(micros) µs")
    }
}

/// `curtainctl info`: the daemon's identity and interfaces.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the daemon's version, uptime and interfaces."
    )
    @OptionGroup var options: DaemonOptions

    func run() throws {
        let (info, status) = try options.withDaemon { client throws(DaemonClient.ClientError) in
            (try client.call("org.varlink.service.GetInfo"), try client.call("io.curtain.Launcher.GetStatus"))
        }
        if options.json != .off { return options.printJSON(.object(info.merging(status) { a, _ in a })) }
        var micros: Int64 = 0
        if case .int(let value)? = status["uptime_usec"] { micros = value }
        let uptime = Double(micros) / 1_000_000
        options.print(
            """
                     Product: \(info["product"]?.text ?? "-") \(info["version"]?.text ?? "")
                      Vendor: \(info["vendor"]?.text ?? "-")
                      Uptime: \((uptime * 10).rounded() / 10) s
                      Status: \(status["status"]?.text ?? "-")
               Configuration: \(status["configuration"]?.text ?? "-")
                  Interfaces: \((info["interfaces"].flatMap { if case .array(let a) = $0 { a.map(\.text) } else { nil } } ?? []).joined(separator: ", "))
            """
        )
    }
}

/// `curtainctl list`: launches in flight, queued and recent.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List launches: the current one, queued ones, recent ended ones."
    )
    @OptionGroup var options: DaemonOptions

    func run() throws {
        let reply = try options.withDaemon { client throws(DaemonClient.ClientError) in
            try client.call("io.curtain.Launcher.List")
        }
        guard case .array(let launches)? = reply["launches"] else { return }
        if options.json != .off { return options.printJSON(.array(launches)) }
        var rows = options.noLegend ? [] : [["ID", "STATE", "DESTINATION", "ROUTE", "REASON"]]
        for launch in launches {
            let destination = launch["destination"]
            rows.append([
                launch["id"]?.text ?? "?", launch["state"]?.text ?? "?",
                "\(destination?["app"]?.text ?? "?")/\(destination?["screen"]?.text ?? "?")",
                launch["route"]?.text ?? "", launch["reason"]?.text ?? "",
            ])
        }
        Table.print(rows, options)
        if !options.noLegend { options.print("\n\(launches.count) launch\(launches.count == 1 ? "" : "es") listed.") }
    }
}

/// `curtainctl status [ID]`: one launch, or the daemon's state and statistics.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a launch, or the daemon's status and statistics."
    )
    @OptionGroup var options: DaemonOptions
    @Argument(help: "A launch's id.") var id: Int?

    func run() throws {
        if let id {
            let (reply, scene) = try options.withDaemon { client throws(DaemonClient.ClientError) in
                let reply = try client.call("io.curtain.Launcher.Get", ["id": .int(Int64(id))])
                // The scene is shown when the daemon can say it (an older one has no GetScene).
                let scene: String
                do throws(DaemonClient.ClientError) {
                    let s = try client.call("io.curtain.Launcher.GetScene", ["launch": .int(Int64(id))])["scene"]
                    let hidden = s?["hidden"].flatMap {
                        if case .array(let a) = $0, !a.isEmpty { a.map(\.text).joined(separator: ", ") } else { nil }
                    }
                    scene =
                        "\(s?["path"]?.text ?? "?") (sha256 \(s?["sha256"]?.text.prefix(12) ?? "?")…), text variant \(s?["text_variant"]?.text ?? "0")"
                        + (hidden.map { ", the app hides \($0)" } ?? "")
                } catch {
                    guard case .daemon(let name, let parameters) = error else { throw error }
                    scene =
                        "- (\(name.split(separator: ".").last ?? "")\(parameters["reason"].map { ": \($0.text)" } ?? ""))"
                }
                return (reply, scene)
            }
            guard let launch = reply["launch"] else { return }
            if options.json != .off { return options.printJSON(launch) }
            let d = launch["destination"]
            options.print(
                """
                    Launch \(id): \(launch["state"]?.text ?? "?") — \(launch["reason"]?.text ?? "")
                         Route: \(launch["route"]?.text ?? "")
                   Destination: \(d?["app"]?.text ?? "?")/\(d?["screen"]?.text ?? "?") \(d?["parameters"].map { JSONWriter.string($0, sortedKeys: true) } ?? "")
                     Readiness: \(launch["readiness"]?.text ?? "-")\(launch["app_status"].map { " (\($0.text))" } ?? "")
                         Scene: \(scene)
                """
            )
            return
        }
        let (status, statistics) = try options.withDaemon { client throws(DaemonClient.ClientError) in
            (try client.call("io.curtain.Launcher.GetStatus"), try client.call("io.curtain.Launcher.GetStatistics"))
        }
        if options.json != .off {
            return options.printJSON(["status": .object(status), "statistics": .object(statistics)])
        }
        options.print("curtaind \(status["version"]?.text ?? ""): \(status["status"]?.text ?? "")")
        let keys = ["requested", "started", "queued", "merged", "busy", "revealed", "failed", "cancelled", "observers"]
        options.print(keys.map { "\($0) \(statistics[$0]?.text ?? "0")" }.joined(separator: ", "))
        if let p50 = statistics["reveal_p50_usec"], let p95 = statistics["reveal_p95_usec"] {
            options.print("request → revealed: p50 \(p50.text) µs, p95 \(p95.text) µs")
        }
    }
}

/// `curtainctl reload`: the configuration, read again (all or nothing).
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make curtaind read its configuration again (all or nothing).",
        discussion:
            "A file without apps is refused while the running configuration has some (an empty or truncated file looks like that); --allow-empty accepts it."
    )
    @OptionGroup var options: DaemonOptions
    @Flag(help: "Accept a configuration without apps (every app and route is dropped).") var allowEmpty = false

    func run() throws {
        let parameters: [String: JSONValue] = allowEmpty ? ["allow_empty": true] : [:]
        let reply = try options.withDaemon { client throws(DaemonClient.ClientError) in
            try client.call("io.curtain.Launcher.Reload", parameters)
        }
        options.print("reloaded: \(reply["configuration"]?.text ?? "")")
    }
}

/// `curtainctl control ID ACTION [PROGRESS]`.
struct ControlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Steer a launch's running transition: seek P, pause, resume, finish, cancel."
    )
    @OptionGroup var options: DaemonOptions
    @Argument(help: "The launch's id.") var id: Int
    @Argument(help: "seek, pause, resume, finish or cancel.") var action: String
    @Argument(help: "For seek: the progress, 0 to 1.") var progress: Double?

    func validate() throws {
        guard ["seek", "pause", "resume", "finish", "cancel"].contains(action) else {
            throw ValidationError("'\(action)' is not seek, pause, resume, finish or cancel")
        }
        if action == "seek", progress == nil { throw ValidationError("seek needs a progress from 0 to 1") }
    }

    func run() throws {
        var parameters: [String: JSONValue] = ["id": .int(Int64(id)), "action": .string(action)]
        if let progress { parameters["progress"] = .float(progress) }
        let reply = try options.withDaemon { client throws(DaemonClient.ClientError) in
            try client.call("io.curtain.Launcher.Control", parameters)
        }
        if options.json != .off, let launch = reply["launch"] { return options.printJSON(launch) }
        options.print("launch \(id): \(reply["launch"]?["state"]?.text ?? "?")")
    }
}

enum Table {
    static func print(_ rows: [[String]], _ options: DaemonOptions) {
        guard let columns = rows.map(\.count).max() else { return }
        let widths = (0..<columns).map { c in rows.map { $0.count > c ? $0[c].count : 0 }.max() ?? 0 }
        for row in rows {
            options.print(
                row.enumerated().map {
                    $0.offset == row.count - 1
                        ? $0.element : $0.element + String(repeating: " ", count: widths[$0.offset] - $0.element.count)
                }
                .joined(separator: "  ")
            )
        }
    }
}
