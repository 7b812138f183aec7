import CurtainTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `curtainctl render --events` (a recorded `launch --follow --frames --json short` stream),
/// `--webp` and `--destination PNG`, run as a user would.
@Suite(.serialized) struct RenderReplayTests {
    let directory: String = {
        var template = Array("/tmp/curtain-replay-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }()

    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let path = directory + "/" + name
        let file = fopen(path, "wb")!
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        return path
    }

    func read(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let n = fread(&chunk, 1, chunk.count, file), n > 0 { bytes += chunk[0..<n] }
        return bytes
    }

    /// ANMF chunks of an animated WebP (RIFF/WEBP with VP8X's animation flag and ANIM), and
    /// its canvas size; nil when the file is not one.
    func webpFrames(_ path: String) -> (frames: Int, width: Int, height: Int)? {
        let b = read(path)
        func le32(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }
        guard b.count > 30, b[0..<4].elementsEqual("RIFF".utf8), b[8..<12].elementsEqual("WEBP".utf8),
            le32(4) + 8 == b.count,
            b[12..<16].elementsEqual("VP8X".utf8), b[20] & 0x02 != 0
        else { return nil }
        var offset = 12
        var frames = 0
        var anim = false
        while offset + 8 <= b.count {
            let fourCC = String(decoding: b[offset..<offset + 4], as: UTF8.self)
            let size = le32(offset + 4)
            anim = anim || fourCC == "ANIM"
            if fourCC == "ANMF" { frames += 1 }
            offset += 8 + size + (size & 1)
        }
        guard anim, offset == b.count else { return nil }
        return (
            frames, (Int(b[24]) | Int(b[25]) << 8 | Int(b[26]) << 16) + 1,
            (Int(b[27]) | Int(b[28]) << 8 | Int(b[29]) << 16) + 1
        )
    }

    static func frame(
        _ i: Int,
        time: Double,
        transition: String = "reveal",
        values: String = #""mask.scale":[1.5],"window.scale":[1.02]"#,
        final: Bool = false
    ) -> String {
        #"{"frame":\#(i),"kind":"frame","launch":7,"time":\#(time),"transition":"\#(transition)","values":{\#(values)}\#(final ? #","final":true"# : "")}"#
    }

    /// A stream shaped like curtaind's: states, the appear's and the reveal's frames, the final one.
    static let stream =
        [
            #"{"kind":"state","launch":7,"reason":"requested","time":1.0,"to":"requested"}"#,
            #"{"from":"requested","kind":"state","launch":7,"reason":"overlay up","time":1.0,"to":"presenting"}"#,
            frame(
                1,
                time: 1.0,
                transition: "appear",
                values: #""logo.scale":[0.82],"text.opacity":[0],"text.translationY":[20]"#
            ),
            frame(
                2,
                time: 1.15,
                transition: "appear",
                values: #""logo.scale":[0.9],"text.opacity":[0.5],"text.translationY":[10]"#
            ),
            #"{"from":"presenting","kind":"state","launch":7,"reason":"appear finished","time":1.3,"to":"holding"}"#,
            #"{"from":"holding","kind":"state","launch":7,"reason":"ready","time":1.4,"to":"revealing"}"#,
            frame(
                3,
                time: 1.4,
                values:
                    #""mask.scale":[1],"mask.rotation":[0],"window.scale":[1.05],"splash.opacity":[0],"backdrop.opacity":[1]"#
            ),
            frame(
                4,
                time: 1.6,
                values: #""mask.scale":[3],"mask.rotation":[-0.2],"window.scale":[1.03],"splash.opacity":[0]"#
            ),
            frame(
                5,
                time: 2.0,
                values:
                    #""mask.scale":[18],"mask.rotation":[-0.5],"mask.hidden":[1],"window.scale":[1],"splash.opacity":[0]"#,
                final: true
            ),
            #"{"from":"revealing","kind":"state","launch":7,"reason":"reveal finished","time":2.0,"to":"revealed"}"#,
        ].joined(separator: "\n") + "\n"

    @Test func replayWritesFramesSheetAndAnimation() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        let events = write("launch.jsonl", Array(Self.stream.utf8))
        let r = try await CLI.run(
            "render",
            "--events",
            events,
            "--size",
            "96x54",
            "--out",
            directory + "/frames",
            "--sheet",
            directory + "/sheet.png",
            "--webp",
            directory + "/launch.webp"
        )
        #expect(r.status == 0, "\(r.stderr)")
        let frames = (0..<5).map { "\(directory)/frames/launch7-000\($0).png" }
        #expect(
            r.stdout == (frames + [directory + "/launch.webp", directory + "/sheet.png"]).joined(separator: "\n") + "\n"
        )
        for file in frames + [directory + "/sheet.png"] { #expect(read(file).starts(with: [0x89, 0x50, 0x4E, 0x47])) }
        // Five different frames: five in the animation, at the output size.
        let webp = try #require(webpFrames(directory + "/launch.webp"))
        #expect(webp.frames == 5 && webp.width == 96 && webp.height == 54)
    }

    /// A transition to an animated WebP, over a stand-in app screenshot: one frame per time
    /// (frames that differ: the encoder merges identical neighbours).
    @Test func webpOfATransitionOverAScreenshot() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        // The stand-in: a PNG the renderer itself wrote (a frame of the appear).
        let shot = try await CLI.run("render", "yula-appear", "--size", "50x80", "--at", "0.3", "--out", directory)
        #expect(shot.status == 0, "\(shot.stderr)")
        let r = try await CLI.run(
            "render",
            "yula-mask-reveal",
            "--size",
            "60x100",
            "--at",
            "0",
            "0.1",
            "0.2",
            "0.3",
            "--destination",
            directory + "/yula-appear-t0300ms.png",
            "--webp",
            directory + "/reveal.webp"
        )
        #expect(r.status == 0, "\(r.stderr)")
        let webp = try #require(webpFrames(directory + "/reveal.webp"))
        #expect(webp.frames == 4 && webp.width == 60 && webp.height == 100, "\(webp)")
    }

    @Test func badLinesAreRefusedWithTheirNumber() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        let good = Self.frame(1, time: 0)
        let cases: [(String, String)] = [
            (good + "\n{\"kind\": \"frame\",\n", "2: JSON syntax error at byte 17: "),
            (good + "\n[1, 2]\n", "2: an event is a JSON object"),
            ("\n\n" + #"{"kind":"frame","time":0}"#, "3: a frame without a \"values\" object"),
            (#"{"kind":"frame","time":"soon","values":{}}"#, "1: no finite \"time\""),
            (
                Self.frame(1, time: 0, values: #""mask.scale":[1,2,3]"#),
                "1: values.mask.scale: 3 components make no value (1 scalar, 2 point or size, 4 rect or colour, 7 (or 5) transform)"
            ),
            (
                Self.frame(1, time: 0, values: #""mask.scale":["x"]"#),
                "1: values.mask.scale: not an array of finite numbers"
            ),
            (
                good + "\n" + #"{"kind":"state","launch":8,"time":1,"to":"revealed"}"#,
                "2: an event of launch 8 after launch 7: record one launch per file"
            ),
            (
                #"{"kind":"state","launch":7,"time":1,"to":"revealed"}"#,
                "no frames (record with `curtainctl launch … --follow --frames --json short`)"
            ),
        ]
        for (text, message) in cases {
            let events = write("bad.jsonl", Array(text.utf8))
            let r = try await TestProcess.run(
                CLI.executable,
                ["render", "--events", events, "--size", "64x36", "--sheet", directory + "/s.png"]
            )
            let expected = "curtainctl render: \(events)\(message.first!.isNumber ? ":" : ": ")\(message)"
            #expect(r.status == 2 && r.stderr.hasPrefix(expected), "\(text): \(r.stderr)")
        }
        let r = try await TestProcess.run(
            CLI.executable,
            ["render", "yula-appear", "--events", directory + "/bad.jsonl", "--sheet", directory + "/s.png"]
        )
        #expect(r.status == 2 && r.stderr == "curtainctl render: give a TRANSITION or --events, not both\n")
    }

    /// The limits of a replay, each at the limit and one past: line length (64 KiB), file size
    /// (16 MiB), frames (10 000).
    @Test func replayLimitsAtTheBoundary() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        func run(_ bytes: [UInt8]) async throws -> (Int32, String) {
            let events = write("limit.jsonl", bytes)
            let r = try await TestProcess.run(
                CLI.executable,
                ["render", "--events", events, "--size", "64x36", "--sheet", directory + "/s.png"]
            )
            return (r.status, r.stderr.replacingOccurrences(of: events, with: "FILE"))
        }
        let frame = Array(Self.frame(1, time: 0).utf8)
        // A line of exactly 65536 bytes (the frame padded with spaces), then one more byte.
        let line = frame + [UInt8](repeating: 0x20, count: 65536 - frame.count)
        #expect(try await run(line + [0x0A]).0 == 0)
        #expect(
            try await run(line + [0x20, 0x0A]) == (
                2, "curtainctl render: FILE:1: the line is 65537 bytes, more than the limit of 65536\n"
            )
        )
        // A file of exactly 16 MiB: the frame, then blank lines.
        var file = frame + [0x0A]
        let blank = [UInt8](repeating: 0x20, count: 65535) + [0x0A]
        while file.count + blank.count <= 16 * 1024 * 1024 { file += blank }
        file += [UInt8](repeating: 0x20, count: 16 * 1024 * 1024 - file.count - 1) + [0x0A]
        #expect(file.count == 16 * 1024 * 1024)
        #expect(try await run(file).0 == 0)
        #expect(
            try await run(file + [0x0A]) == (
                2, "curtainctl render: FILE: is 16777217 bytes, more than the limit of 16777216 (16 MiB)\n"
            )
        )
        // 10 000 frames, then 10 001.
        let frames = (0..<10_000).map { Self.frame($0, time: Double($0) / 60) }.joined(separator: "\n") + "\n"
        #expect(try await run(Array(frames.utf8)).0 == 0)
        let more = frames + Self.frame(10_000, time: 200) + "\n"
        #expect(try await run(Array(more.utf8)) == (2, "curtainctl render: FILE:10001: more than 10000 frames\n"))
    }
}
