import Foundation
import Testing

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `AppOutput`: each line of an app's pipe logged once and whole, in order; a last line without
/// its newline when the pipe ends; a line over the limit cut; every pipe read by one thread.
@Suite struct AppOutputTests {
    static func pipePair() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    @Test(.timeLimit(.minutes(1))) func linesComeOutWholeAndInOrder() async throws {
        let (first, second) = (CollectedLog(), CollectedLog())
        let a = try Self.pipePair()
        let b = try Self.pipePair()
        AppOutput.forward(from: a.read, logger: first.logger)
        AppOutput.forward(from: b.read, logger: second.logger)

        Self.send(a.write, "one\ntw")
        Self.send(b.write, "x\n")
        #expect(await first.wait(within: 10) { $0.count == 1 })
        Self.send(a.write, "o\nthree")
        #expect(await first.wait(within: 10) { $0.count == 2 })
        close(a.write)  // the unfinished line comes out at the end of the pipe
        #expect(await first.wait(within: 10) { $0.count == 3 })
        #expect(first.lines == ["one []", "two []", "three []"])

        let long = String(repeating: "y", count: 2 * AppOutput.maximumLine + 100)  // fits in the pipe
        Self.send(b.write, long)
        close(b.write)
        #expect(await second.wait(within: 10) { $0.count == 3 })
        let lines = second.lines
        #expect(lines.first == "x []")
        // Cut once past the limit (read 4 KiB at a time), the rest at the end.
        #expect(lines.dropFirst().map { $0.count - " []".count }.reduce(0, +) == long.count)
        #expect(lines.dropFirst().allSatisfy { $0.count - " []".count <= AppOutput.maximumLine + 4096 })
        // Both pipes, and every other app's, read by one thread.
        #expect(Self.threads(named: "app-output") == 1)
    }

    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter {
            (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) == name + "\n"
        }
        .count
    }
}
