import ArgumentParser
import CurtainConfig
import CurtainCore
import CurtainRender
import CurtainctlSupport

#if canImport(Glibc)
import Glibc
#endif

/// `curtainctl render …`: scene + timeline → PNGs. A helper that curtainctl executes (like
/// curtainctl-config), so that curtainctl itself never loads cairo, pango and librsvg.
@main
struct CurtainctlRender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curtainctl",
        abstract: "curtainctl's renderer (run through curtainctl render).",
        version: CurtainVersion.string,
        subcommands: [RenderCommand.self, SceneCommand.self]
    )

    static func main() { runMappingUsageErrors(attachNegativeNumbers(Array(CommandLine.arguments.dropFirst()))) }

    /// "--at -0.1" would read as an option: attach numbers to --at first.
    static func attachNegativeNumbers(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument == "--at" else {
                result.append(argument)
                continue
            }
            var attached = 0
            while index < arguments.count, Double(arguments[index]) != nil {
                result.append("--at=\(arguments[index])")
                index += 1
                attached += 1
            }
            if attached == 0 { result.append(argument) }
        }
        return result
    }
}

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a transition over its scene into PNG images.",
        discussion: """
            TRANSITION is a preset (\(Presets.all.keys.sorted().joined(separator: ", "))) or a timeline \
            file. The scene defaults to the preset's shipped scene (slide and flip: slide, logo-move, \
            panel-blur, hero; the others: yula, seed 000); see docs/scene.md. Images \
            are transparent where the overlay does not paint (where the app shows), unless \
            --destination gives a stand-in app: a colour or a PNG screenshot (scaled to fill).

            --events FILE replays a recorded `curtainctl launch … --follow --frames --json short` \
            stream instead of a TRANSITION (default size 1920x1080, the shipped configuration's \
            screen): every frame to --out, a contact sheet with the state changes under the \
            frames, an animated preview.

            Examples:
              curtainctl render yula-mask-reveal --at 0 0.12 0.3 0.6 --out frames/
              curtainctl render yula-mask-reveal --fps 30 --destination '#2ecc71' --out frames/
              curtainctl render yula-mask-reveal --destination '#2ecc71' --sheet reveal.png
              curtainctl render yula-mask-reveal --appear yula-appear --fps 20 --sheet launch.png
              curtainctl render yula-mask-reveal --fps 30 --destination app.png --webp reveal.webp
              curtainctl render --events launch.jsonl --sheet launch.png --webp launch.webp
              curtainctl render --events launch.jsonl --size 1280x720 --scale 2 --out frames/
              curtainctl render flip --sheet flip.png
              curtainctl render panel-blur --previous home.png --at 0 1.25 2.5 --out frames/
              curtainctl render hero --element logo=16,40,48,48 --element title=72,48,200,32 --sheet hero.png
            """
    )

    @Argument(help: ArgumentHelp("A preset name or a timeline file (not with --events).", valueName: "transition"))
    var transition: String?

    @Option(
        help: ArgumentHelp(
            "Replay a recorded `launch --follow --frames --json short` stream (one JSON event per line).",
            valueName: "file"
        )
    )
    var events: String?

    @Option(help: ArgumentHelp("Also write an animated WebP of the frames (browsers play it).", valueName: "file"))
    var webp: String?

    @Option(
        help: ArgumentHelp(
            "The scene file (*.scene.json); default: the preset's shipped scene (yula's for others and --events).",
            valueName: "file"
        )
    )
    var scene: String?

    @Option(
        help: ArgumentHelp(
            "Screen size in points (the scene's screen.width and screen.height); the images are this times --scale pixels, at most 8192×8192; default 375x667, 1920x1080 with --events.",
            valueName: "WxH"
        )
    )
    var size: String?

    @Option(
        help: ArgumentHelp(
            "Pixels per point, as a HiDPI output's scale (wl_output.scale): the scene is laid out in --size points and drawn this many times larger, as curtain-overlay draws it on such an output.",
            valueName: "N"
        )
    )
    var scale: Int = 1

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Times in seconds to render (repeatable).", valueName: "seconds")
    )
    var at: [Double] = []

    @Option(help: "Render every frame from 0 to the transition's end at this rate (1 to 240).")
    var fps: Double?

    @Option(help: ArgumentHelp("Directory for the PNGs (created if missing).", valueName: "dir"))
    var out: String?

    @Option(
        help: ArgumentHelp(
            "A stand-in app composited below: a colour (#rrggbb[aa]) or a PNG file, scaled to fill.",
            valueName: "color|png"
        )
    )
    var destination: String?

    @Option(help: ArgumentHelp("Also write a contact sheet of the whole transition to this PNG.", valueName: "file"))
    var sheet: String?

    @Option(
        help: ArgumentHelp(
            "Play this appear transition first (e.g. yula-appear): times then run over both, the reveal starting where the appear ends.",
            valueName: "transition"
        )
    )
    var appear: String?

    @Option(
        name: .customLong("text-variant"),
        help: "The launch's text variant (chooses among a text layer's variants)."
    )
    var textVariant: Int = 0

    @Option(
        help: ArgumentHelp(
            "What was on screen before (a PNG), shown by the scene's retained layers (panel-blur blurs it).",
            valueName: "file.png"
        )
    )
    var previous: String?

    @Option(
        name: .customLong("element"),
        help: ArgumentHelp(
            "An element the app reports, for hero (matched with the scene's heroIDs) and element.ID.* parameters (repeatable).",
            valueName: "id=x,y,w,h"
        )
    )
    var elements: [String] = []

    @Option(
        name: .customLong("param"),
        help: ArgumentHelp("Bind a timeline parameter, e.g. mask.x=100 (repeatable).", valueName: "name=value")
    )
    var parameters: [String] = []

    /// Most images one run writes.
    static let maximumFrames = 10_000

    func run() throws {
        let (width, height) = try parseSize()
        guard out != nil || sheet != nil || webp != nil else {
            throw fail("render", "nothing to write: give --out DIR, --sheet FILE.png and/or --webp FILE.webp")
        }
        if let events {
            guard transition == nil else { throw fail("render", "give a TRANSITION or --events, not both") }
            guard at.isEmpty, fps == nil, appear == nil, parameters.isEmpty, elements.isEmpty else {
                throw fail(
                    "render",
                    "--events replays recorded frames: --at, --fps, --appear, --param and --element do not apply"
                )
            }
            return try replay(events, width: width, height: height)
        }
        guard let transition else {
            throw fail("render", "give a TRANSITION (a preset or a timeline file) or --events FILE")
        }
        guard at.isEmpty || fps == nil else { throw fail("render", "give --at or --fps, not both") }
        if out != nil, at.isEmpty, fps == nil { throw fail("render", "--out needs --at T… or --fps N") }
        if webp != nil, at.isEmpty, fps == nil { throw fail("render", "--webp needs --at T… or --fps N") }
        if let fps {
            guard fps.isFinite, (1...240).contains(fps) else { throw fail("render", "--fps \(fps) is outside 1…240") }
        }
        for t in at where !t.isFinite || abs(t) > Timeline.Limits.seconds {
            throw fail("render", "--at \(t) is not a time within ±\(Timeline.Limits.seconds) s")
        }
        let (stand, standImage) = try standIn()

        var document = try loadTimeline(transition)
        var bound: [String: Double] = ["screen.width": Double(width), "screen.height": Double(height)]
        var reported: [String: Hero.Frame] = [:]
        for pair in elements {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let numbers =
                parts.count == 2 ? parts[1].split(separator: ",").compactMap { Double($0) }.filter(\.isFinite) : []
            guard parts.count == 2, !parts[0].isEmpty, numbers.count == 4, numbers[2] >= 0, numbers[3] >= 0 else {
                throw fail("render", "--element '\(pair)' is not id=x,y,width,height")
            }
            let frame = Hero.Frame(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
            reported[String(parts[0])] = frame
            // As the daemon binds them: the centre and the size.
            bound["element.\(parts[0]).x"] = frame.x + frame.width / 2
            bound["element.\(parts[0]).y"] = frame.y + frame.height / 2
            bound["element.\(parts[0]).width"] = frame.width
            bound["element.\(parts[0]).height"] = frame.height
        }
        for pair in parameters {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, let value = Double(parts[1]), value.isFinite else {
                throw fail("render", "--param '\(pair)' is not name=number")
            }
            bound[String(parts[0])] = value
        }
        let renderer: SceneRenderer
        let path = try scenePath()
        do { renderer = try SceneRenderer(sceneFile: path) } catch { throw fail("render", error.message) }
        if document.name == "hero", !Files.exists(transition) {
            // Seed 004 is built per launch: the scene's hero elements against the reported ones.
            let scene: Scene
            do { scene = try renderer.scene(width: width, height: height) } catch {
                throw fail("render", error.message)
            }
            document = Hero.document(from: Hero.elements(in: scene), to: reported.mapValues { Hero.Element($0) })
        }
        let declared = Set((document.parameters ?? []).map(\.name))
        bound = bound.filter { !$0.key.hasPrefix("element.") || declared.contains($0.key) }
        let previousScreen = try loadPreviousScreen()
        let timeline: Timeline
        do { timeline = try Timeline(document: document, parameters: bound) } catch {
            throw fail("render", "\(transition): \(error)")
        }
        var first: Timeline? = nil
        if let appear {
            do { first = try Timeline(document: try loadTimeline(appear), parameters: bound) } catch let error
                as TimelineError
            { throw fail("render", "\(appear): \(error)") }
            guard first!.duration.isFinite else {
                throw fail("render", "\(appear) repeats for ever; it cannot come first")
            }
        }
        let offset = first?.duration ?? 0
        let duration = offset + timeline.duration
        guard duration.isFinite else { throw fail("render", "\(timeline.name) repeats for ever; render it with --at") }
        let name = first.map { "\($0.name)+\(timeline.name)" } ?? timeline.name
        func frame(_ t: Double) throws -> Image {
            let values =
                if let first, t < offset { first.keyedValues(first.evaluate(at: t)) } else {
                    timeline.keyedValues(timeline.evaluate(at: t - offset))
                }
            do {
                return try renderer.render(
                    values: values,
                    width: width,
                    height: height,
                    scale: scale,
                    textVariant: textVariant,
                    destination: stand,
                    destinationImage: standImage,
                    previousScreen: previousScreen
                )
            } catch { throw fail("render", error.message) }
        }

        var times = at
        if let fps {
            let last = Int((duration * fps - 1e-9).rounded(.up))
            guard last < Self.maximumFrames else {
                throw fail("render", "\(last + 1) frames is more than the limit of \(Self.maximumFrames)")
            }
            times = (0...max(last, 0)).map { min(Double($0) / fps, duration) }
        }
        if let out {
            guard mkdir(out, 0o755) == 0 || errno == EEXIST else {
                throw fail("render", "cannot create \(out): \(String(cString: strerror(errno)))")
            }
            for (i, t) in times.enumerated() {
                let suffix = fps != nil ? format4(i) : "t" + milliseconds(t)
                let file = "\(out)/\(name)-\(suffix).png"
                do { try frame(t).writePNG(to: file) } catch let error as RenderError {
                    throw fail("render", error.message)
                }
                print(file)
            }
        }
        if let webp {
            do {
                let encoder = try AnimatedWebP.Encoder(width: width * scale, height: height * scale)
                for t in times { try encoder.add(time: t, image: try frame(t)) }
                try write(try encoder.finish(lastDuration: 1), to: webp)
            } catch let error as RenderError { throw fail("render", error.message) }
            print(webp)
        }
        if let sheet {
            // The whole transition: the given times, or 10 evenly spaced frames with the end.
            var sheetTimes = times
            if sheetTimes.isEmpty { sheetTimes = (0...9).map { duration * Double($0) / 9 } }
            guard sheetTimes.count <= ContactSheet.maximumFrames else {
                throw fail(
                    "render",
                    "\(sheetTimes.count) frames is more than a contact sheet's limit of \(ContactSheet.maximumFrames); lower --fps"
                )
            }
            var frames: [(time: Double, image: Image)] = []
            for t in sheetTimes { frames.append((t, try frame(t))) }
            do {
                let title =
                    "\(name) over \((renderer.path as String).split(separator: "/").last ?? "") at \(width)×\(height)\(scaleSuffix)"
                try ContactSheet.make(title: title, frames: frames).writePNG(to: sheet)
            } catch { throw fail("render", error.message) }
            print(sheet)
        }
    }

    /// --previous: the screen before the transition (a PNG), for the scene's retained layers.
    func loadPreviousScreen() throws -> Image? {
        guard let previous else { return nil }
        var info = stat()
        guard stat(previous, &info) == 0 else {
            throw fail("render", "--previous \(previous): \(String(cString: strerror(errno)))")
        }
        guard info.st_size <= Scene.Limits.assetBytes else {
            throw fail(
                "render",
                "--previous \(previous): \(info.st_size) bytes is more than the limit of \(Scene.Limits.assetBytes)"
            )
        }
        guard let image = Image.readPNG(previous) else {
            throw fail("render", "--previous \(previous): not a readable PNG")
        }
        guard image.width <= SceneRenderer.Limits.outputDimension, image.height <= SceneRenderer.Limits.outputDimension
        else {
            throw fail(
                "render",
                "--previous \(previous): \(image.width)×\(image.height) is more than \(SceneRenderer.Limits.outputDimension) in a dimension"
            )
        }
        return image
    }

    /// --destination: a colour, or a PNG file (a name ending in .png, or any existing file).
    func standIn() throws -> (Color?, Image?) {
        guard let destination else { return (nil, nil) }
        if destination.lowercased().hasSuffix(".png") || (!destination.hasPrefix("#") && Files.exists(destination)) {
            do { return (nil, try Image.loadPNG(destination)) } catch {
                throw fail("render", "--destination \(error.message)")
            }
        }
        guard let color = Color(hex: destination) else {
            throw fail(
                "render",
                "--destination '\(destination)' is neither a #rgb, #rgba, #rrggbb or #rrggbbaa colour nor a PNG file"
            )
        }
        return (color, nil)
    }

    func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else {
            throw fail("render", "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard fclose(file) == 0, written == bytes.count else {
            throw fail("render", "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Frames per replay contact sheet (plus the frames after state changes and the last).
    static let replaySheetFrames = 20

    /// --events: draws a recorded stream's frames, each with its own values, at their times
    /// from the first event; each frame is repainted only where it changed.
    func replay(_ path: String, width: Int, height: Int) throws {
        let replay: EventReplay
        do { replay = try EventReplay(path: path) } catch { throw fail("render", error.message) }
        let (stand, standImage) = try standIn()
        let previousScreen = try loadPreviousScreen()
        let renderer: SceneRenderer
        do { renderer = try SceneRenderer(sceneFile: try scenePath()) } catch let error as RenderError {
            throw fail("render", error.message)
        }
        let name = replay.launch.map { "launch\($0)" } ?? "replay"
        let sheetIndices = Set(sheet != nil ? replay.sheetIndices(count: Self.replaySheetFrames) : [])
        do {
            let kept = try renderer.makeFrame(width: width * scale, height: height * scale)
            var previous: [String: Value]? = nil
            let encoder = try webp.map { _ throws(RenderError) in
                try AnimatedWebP.Encoder(width: width * scale, height: height * scale)
            }
            var shown: [(time: Double, image: Image)] = []
            if let out {
                guard mkdir(out, 0o755) == 0 || errno == EEXIST else {
                    throw fail("render", "cannot create \(out): \(String(cString: strerror(errno)))")
                }
            }
            // Only a sheet: only its frames are drawn.
            let drawn = out == nil && webp == nil ? sheetIndices : Set(replay.frames.indices)
            for (i, frame) in replay.frames.enumerated() where drawn.contains(i) {
                try renderer.render(
                    values: frame.values,
                    into: kept,
                    previous: previous,
                    scale: scale,
                    textVariant: textVariant,
                    previousScreen: previousScreen
                )
                previous = frame.values
                let t = frame.time - replay.origin
                let image =
                    stand != nil || standImage != nil
                    ? try renderer.render(
                        values: frame.values,
                        width: width,
                        height: height,
                        scale: scale,
                        textVariant: textVariant,
                        destination: stand,
                        destinationImage: standImage,
                        previousScreen: previousScreen
                    )
                    : kept
                if let out {
                    let file = "\(out)/\(name)-\(format4(i)).png"
                    try image.writePNG(to: file)
                    print(file)
                }
                try encoder?.add(time: t, image: image)
                if sheetIndices.contains(i) { shown.append((t, image === kept ? try kept.copy() : image)) }
            }
            if let encoder, let webp {
                try write(try encoder.finish(lastDuration: 1), to: webp)
                print(webp)
            }
            if let sheet {
                let indices = sheetIndices.sorted()
                let title =
                    "\(name) replayed from \(path.split(separator: "/").last ?? "") at \(width)×\(height)\(scaleSuffix) (\(replay.frames.count) frames)"
                try ContactSheet.make(
                    title: title,
                    frames: shown,
                    captions: replay.captions(indices),
                    columns: 4,
                    thumbnailWidth: 240
                ).writePNG(to: sheet)
                print(sheet)
            }
        } catch let error as RenderError { throw fail("render", error.message) }
    }

    func format4(_ i: Int) -> String {
        let s = String(i)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    func milliseconds(_ t: Double) -> String {
        let ms = Int((t * 1000).rounded())
        return (ms < 0 ? "-" : "") + format4(abs(ms)) + "ms"
    }

    func parseSize() throws -> (Int, Int) {
        let size = self.size ?? (events != nil ? "1920x1080" : "375x667")
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw fail("render", "--size '\(size)' is not WIDTHxHEIGHT (e.g. 375x667)")
        }
        let limit = SceneRenderer.Limits.outputDimension
        guard (1...limit).contains(w), (1...limit).contains(h) else {
            throw fail("render", "--size \(w)x\(h) is outside 1…\(limit) in each dimension")
        }
        // The pixels are what is limited: points times the scale.
        guard scale >= 1 else {
            throw fail("render", "--scale \(scale) is not a whole number of pixels a point, 1 or more")
        }
        guard w <= limit / scale, h <= limit / scale else {
            let pixels = [w, h].map { n in
                let (product, overflow) = n.multipliedReportingOverflow(by: scale)
                return overflow ? "∞" : String(product)
            }
            throw fail(
                "render",
                "--size \(w)x\(h) at --scale \(scale) is \(pixels[0])x\(pixels[1]) pixels, more than \(limit) in a dimension"
            )
        }
        return (w, h)
    }

    /// " @2x" after a size in titles when drawn at a scale.
    var scaleSuffix: String { scale == 1 ? "" : " @\(scale)x" }

    func loadTimeline(_ transition: String) throws -> TimelineDocument {
        if Files.exists(transition) {
            do { return try TimelineDocument(json: try Files.read(transition)) } catch {
                throw fail("render", "\(transition): \(error)")
            }
        }
        if let preset = Presets.document(named: transition) { return preset }
        throw fail(
            "render",
            "'\(transition)' is neither a file nor a preset (presets: \(Presets.all.keys.sorted().joined(separator: ", ")))"
        )
    }

    /// --scene, or the preset's shipped scene (`SceneLocator`, which curtaind's GetScene uses too).
    func scenePath() throws -> String {
        if let scene { return scene }
        let relative =
            transition.flatMap { Files.exists($0) ? nil : SceneLocator.relativePath(forTransition: $0) }
            ?? SceneLocator.defaultScene
        if let found = SceneLocator.shipped(relative) { return found }
        throw fail("render", "the shipped scene \(relative) is not installed; give --scene FILE or set CURTAIN_SCENES")
    }
}

/// `curtainctl scene check PATH`: validates a scene and loads its assets, as a renderer would.
struct SceneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene",
        abstract: "Check scene files (docs/scene.md).",
        subcommands: [Check.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Validate a scene: the document (with line:column for JSON syntax, a key path otherwise), masks, limits and every asset."
        )

        @Argument(help: ArgumentHelp("The scene file (*.scene.json).", valueName: "path"))
        var path: String

        func run() throws {
            let renderer: SceneRenderer
            do { renderer = try SceneRenderer(sceneFile: path) } catch {
                var stderr = StandardError()
                print("curtainctl scene check: \(error.message)", to: &stderr)
                throw ExitCode(2)
            }
            let scene = try renderer.scene(width: 375, height: 667)
            let assets = scene.assetPaths
            print(
                "\(path): ok — \(scene.allLayers.count) layers, \(assets.count) asset\(assets.count == 1 ? "" : "s")\(assets.isEmpty ? "" : " (" + assets.joined(separator: ", ") + ")")"
            )
        }
    }
}
