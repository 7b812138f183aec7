import CurtainTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `curtainctl render --scale N`: the scene laid out in --size points, the images N times as
/// many pixels a side (what curtain-overlay draws on an output of that scale). Part of
/// RenderCommandTests (its temporary directory, run one at a time).
extension RenderCommandTests {
    /// A PNG's width and height (its IHDR chunk), nil if it is not one.
    func pngSize(_ path: String) -> (Int, Int)? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 24)
        guard fread(&header, 1, 24, file) == 24, header[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        else { return nil }
        func be(_ i: Int) -> Int { header[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    @Test func imagesAreTheSizeTimesTheScale() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        let r = try await CLI.run(
            "render",
            "yula-mask-reveal",
            "--size",
            "120x200",
            "--scale",
            "2",
            "--at",
            "0.2",
            "--out",
            directory
        )
        #expect(r.status == 0, "\(r.stderr)")
        let size = pngSize(directory + "/yula-mask-reveal-t0200ms.png")
        #expect(size.map { $0 == (240, 400) } == true, "\(String(describing: size))")
    }

    /// The limit is on pixels: 4096 points at scale 2 are 8192 (passes), 4097 are 8194 (refused).
    @Test func theLimitIsOnPixels() async throws {
        defer { _ = system("rm -rf '\(directory)'") }
        let ok = try await CLI.run(
            "render",
            "yula-mask-reveal",
            "--size",
            "4096x1",
            "--scale",
            "2",
            "--at",
            "0",
            "--out",
            directory
        )
        #expect(ok.status == 0, "\(ok.stderr)")
        let size = pngSize(directory + "/yula-mask-reveal-t0000ms.png")
        #expect(size.map { $0 == (8192, 2) } == true, "\(String(describing: size))")
        let bad: [([String], String)] = [
            (
                ["render", "yula-mask-reveal", "--size", "4097x1", "--scale", "2", "--at", "0", "--out", directory],
                "curtainctl render: --size 4097x1 at --scale 2 is 8194x2 pixels, more than 8192 in a dimension\n"
            ),
            (
                ["render", "yula-mask-reveal", "--size", "10x10", "--scale", "0", "--at", "0", "--out", directory],
                "curtainctl render: --scale 0 is not a whole number of pixels a point, 1 or more\n"
            ),
        ]
        for (arguments, message) in bad {
            let r = try await TestProcess.run(CLI.executable, arguments)
            #expect(r.status == 2 && r.stderr == message, "\(arguments): \(r.stderr)")
        }
    }
}
