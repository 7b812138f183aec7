import CurtainDaemon
import CurtainTestKit
import Foundation
import Testing

/// The journal catalog, read by the real journalctl: one entry per LogEvent, nothing else.
@Suite struct CatalogTests {
    @Test func everyEventHasAnEntryThatJournalctlAccepts() async throws {
        let root = TestEnvironment.temporaryDirectory("catalog")
        let directory = root.appendingPathComponent("usr/lib/systemd/catalog")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: TestEnvironment.repository.appendingPathComponent("units/curtain.catalog"),
            to: directory.appendingPathComponent("curtain.catalog")
        )
        let update = try await TestProcess.run("/usr/bin/journalctl", ["--root=\(root.path)", "--update-catalog"])
        #expect(update.status == 0 && update.stderr.isEmpty, "\(update.stderr)")

        let list = try await TestProcess.run("/usr/bin/journalctl", ["--root=\(root.path)", "--list-catalog"])
        #expect(list.status == 0, "\(list.stderr)")
        var listed: [String: String] = [:]
        for line in list.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { listed[String(parts[0])] = String(parts[1]) }
        }
        #expect(Set(listed.keys) == Set(LogEvent.allCases.map(\.messageID)))
        for (id, subject) in listed { #expect(subject.hasPrefix("curtain: "), "\(id) \(subject)") }
    }

    @Test func idsAreDistinct128BitHex() {
        let ids = LogEvent.allCases.map(\.messageID)
        #expect(Set(ids).count == ids.count)
        for id in ids { #expect(id.count == 32 && id.allSatisfy(\.isHexDigit) && id == id.lowercased()) }
    }
}
