import ArgumentParser
import CurtainCore
import CurtainctlSupport

/// `curtainctl timeline`: print every frame of a timeline, as a renderer would receive it.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Print every frame's values of a timeline file or preset.",
        discussion: """
            SOURCE is a timeline document (JSON; see docs/timeline.md) or the name of a shipped \
            preset: \(Presets.all.keys.sorted().joined(separator: ", ")). Frames are taken at the \
            given rate from 0 to the timeline's end, each at its scheduled time.

            Examples:
              curtainctl timeline yula-mask-reveal --fps 60
              curtainctl timeline yula-mask-reveal --param screen.height=812 --json
              curtainctl timeline my-reveal.json --svg reveal.svg
              curtainctl timeline yula-appear --source
            """
    )

    @Argument(help: ArgumentHelp("A timeline file or a preset name.", valueName: "source"))
    var source: String

    @Option(help: "Frames per second, 1 to 1000.")
    var fps: Double = 60

    @Option(
        name: .customLong("param"),
        help: ArgumentHelp("Bind a parameter, e.g. screen.height=812 (repeatable).", valueName: "name=value")
    )
    var parameters: [String] = []

    @Option(
        help: ArgumentHelp(
            "Stop at this time in seconds (required when something repeats for ever).",
            valueName: "seconds"
        )
    )
    var until: Double?

    @Flag(help: "Print JSON: {name, fps, duration, frames: [{t, values}]}.")
    var json = false

    @Flag(name: .customLong("source"), help: "Print the timeline document itself (pretty JSON) instead of frames.")
    var showSource = false

    @Option(help: ArgumentHelp("Also write an SVG plot of every track over time to this file.", valueName: "file"))
    var svg: String?

    static let maximumFrames = 1_000_000

    func run() throws {
        let document = try loadDocument()
        if showSource {
            print(document.json())
            return
        }

        var bound: [String: Double] = [:]
        for pair in parameters {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, let value = Double(parts[1]), value.isFinite else {
                throw fail("timeline", "--param '\(pair)' is not name=number")
            }
            bound[String(parts[0])] = value
        }
        let timeline: Timeline
        do { timeline = try Timeline(document: document, parameters: bound) } catch {
            throw fail("timeline", "\(source): \(error)")
        }

        guard fps.isFinite, (1...1000).contains(fps) else { throw fail("timeline", "--fps \(fps) is outside 1...1000") }
        let end = until ?? timeline.duration
        guard end.isFinite, end >= 0 else {
            throw fail(
                "timeline",
                until == nil
                    ? "\(timeline.name) repeats for ever; give --until SECONDS"
                    : "--until must be a non-negative number"
            )
        }
        let lastFrame = Int((end * fps - 1e-9).rounded(.up))
        guard lastFrame < Self.maximumFrames else {
            throw fail("timeline", "\(lastFrame + 1) frames is more than the limit of \(Self.maximumFrames)")
        }

        var values = timeline.slots.map(\.initial)
        var frames: [(t: Double, values: [Value])] = []
        frames.reserveCapacity(max(lastFrame, 0) + 1)
        for i in 0...max(lastFrame, 0) {
            let t = Double(i) / fps
            timeline.evaluate(at: t, into: &values)
            frames.append((t, values))
        }
        let keys = timeline.slots.map(\.key)

        if json {
            var out =
                "{\"name\":\(Format.jsonString(timeline.name)),\"fps\":\(Format.json(fps)),\"duration\":\(Format.json(timeline.duration)),\"frames\":["
            out += frames.map { frame in
                "{\"t\":\(Format.json(frame.t)),\"values\":{"
                    + zip(keys, frame.values).map { "\(Format.jsonString($0)):\(Format.json($1))" }.joined(
                        separator: ","
                    ) + "}}"
            }.joined(separator: ",")
            print(out + "]}")
        } else {
            let header = ["time"] + keys
            let rows = frames.map { [Format.number($0.t)] + $0.values.map(Format.cell) }
            let widths = header.indices.map { column in rows.reduce(header[column].count) { max($0, $1[column].count) }
            }
            func line(_ cells: [String]) -> String {
                zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
                    .trimmingTrailingSpaces()
            }
            print(line(header))
            for row in rows { print(line(row)) }
        }

        if let svg {
            var panels: [SVGPlot.Panel] = []
            for (slot, key) in keys.enumerated() {
                let kind = timeline.slots[slot].initial.kind
                for (component, name) in Value.componentNames(kind).enumerated() {
                    let points = frames.map { ($0.t, $0.values[slot].components[component]) }
                    panels.append(.init(name: name.isEmpty ? key : "\(key).\(name)", points: points, marks: []))
                }
            }
            let plot = SVGPlot(
                title: "\(timeline.name) at \(Format.number(fps)) fps",
                xLabel: "time (s)",
                panels: panels
            )
            do { try Files.write(plot.render(), to: svg) } catch {
                throw fail("timeline", "cannot write the plot: \(error)")
            }
        }
    }

    private func loadDocument() throws -> TimelineDocument {
        if Files.exists(source) {
            do { return try TimelineDocument(json: try Files.read(source)) } catch {
                throw fail("timeline", "\(source): \(error)")
            }
        }
        if let preset = Presets.document(named: source) { return preset }
        throw fail(
            "timeline",
            "'\(source)' is neither a file nor a preset (presets: \(Presets.all.keys.sorted().joined(separator: ", ")))"
        )
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
