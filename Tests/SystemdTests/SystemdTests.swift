import CurtainDaemon
import CurtainTestKit
import Foundation
import Testing

@testable import Systemd

#if canImport(Glibc)
import Glibc
#endif

/// Against the real thing: the journal's native protocol into a real systemd-journald (in a
/// private mount namespace), and sd_notify's datagrams into a notify socket.
@Suite(.serialized) struct SystemdTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let probe = TestEnvironment.product("systemd-probe")
    static let canIsolate =
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd-journald")

    /// Root is needed for the mount namespace; in CI (root) this never skips.
    func requireRoot() -> Bool {
        if Self.canIsolate { return true }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("needs root and /lib/systemd/systemd-journald")
        }
        return false
    }

    func harness(_ mode: String) async throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(try await harnessOutput(mode).utf8)) as? [String: Any]) ?? [:]
    }

    func harnessOutput(_ mode: String) async throws -> String {
        let r = try await TestProcess.run(
            "/usr/bin/unshare",
            [
                "--mount", "--propagation", "private", "/usr/bin/python3",
                Self.here.appendingPathComponent("journal_harness.py").path, Self.probe, mode,
            ]
        )
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    @Test func structuredFieldsReachJournald() async throws {
        guard requireRoot() else { return }
        let entry = try await harness("log")
        #expect(entry["MESSAGE"] as? String == "launch revealed")
        #expect(entry["PRIORITY"] as? String == "5")
        #expect(entry["SYSLOG_IDENTIFIER"] as? String == "curtain-probe")
        #expect(entry["MESSAGE_ID"] as? String == LogEvent.launchRevealed.messageID)
        #expect(entry["CURTAIN_LAUNCH_ID"] as? String == "42")
        #expect(entry["CURTAIN_APP"] as? String == "shop")  // from the logger's metadata
        #expect(entry["CURTAIN_ROUTE"] as? String == "deeplink")  // "curtain.route" → CURTAIN_ROUTE
        #expect((entry["CODE_FILE"] as? String)?.hasSuffix("main.swift") == true)
        #expect(entry["CODE_FUNC"] != nil && entry["CODE_LINE"] != nil)
        #expect(entry["_TRUSTED"] == nil && entry["TRUSTED"] == nil)  // '_' keys are never sent
        #expect(entry["_TRANSPORT"] as? String == "journal")
    }

    /// A value with a newline goes in the protocol's binary form; an entry larger than a
    /// datagram (20 MiB) in a sealed memfd. journald stores both as sent.
    @Test func multilineAndLargeEntriesReachJournald() async throws {
        guard requireRoot() else { return }
        let output = try await harnessOutput("log-more")
        let entries = (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]]) ?? []
        #expect(entries.count == 2, "\(output.prefix(500))")
        guard entries.count == 2 else { return }
        /// journalctl writes a field with a control character as its bytes.
        func text(_ value: Any?) -> String? {
            if let string = value as? String { return string }
            return (value as? [Int]).map { String(decoding: $0.map { UInt8($0) }, as: UTF8.self) }
        }
        #expect(text(entries[0]["MESSAGE"]) == "first line\nsecond line")
        #expect(entries[0]["CURTAIN_CASE"] as? String == "multiline")
        #expect(entries[1]["MESSAGE_LENGTH"] as? Int == 20 << 20)  // the harness's summary of it
        #expect(entries[1]["CURTAIN_CASE"] as? String == "large")
        #expect(entries[1]["_TRANSPORT"] as? String == "journal")
    }

    @Test func withoutJournaldItFallsBackToStderr() async throws {
        guard requireRoot() else { return }
        let result = try await harness("fallback")
        #expect(result["status"] as? Int == 0)
        #expect(
            result["stderr"] as? String
                == "<5>curtain-probe: launch revealed _trusted=dropped curtain.route=deeplink curtain_app=shop curtain_launch_id=42 message_id=cf795f9b50234629b2eaf0f5674a598f\n"
        )
    }

    @Test func fieldNames() {
        #expect(JournalLogHandler.fieldName("curtain_launch_id") == "CURTAIN_LAUNCH_ID")
        #expect(JournalLogHandler.fieldName("curtain.route") == "CURTAIN_ROUTE")
        #expect(JournalLogHandler.fieldName("_PID") == nil)
        #expect(JournalLogHandler.fieldName("1x") == nil)
        #expect(JournalLogHandler.fieldName(String(repeating: "a", count: 65)) == nil)
        #expect(JournalLogHandler.priority(.critical) == 2 && JournalLogHandler.priority(.trace) == 7)
    }

    /// sd_notify's datagrams into a notify socket, as the service manager sees them.
    @Test func notifierSendsEachState() async throws {
        let notify = NotifyListener(directory: TestEnvironment.temporaryDirectory("notify"))
        let probe = try await TestProcess(
            Self.probe,
            ["notify"],
            environment: ["NOTIFY_SOCKET": notify.path],
            inherit: false
        )
        var messages: [String] = []
        while messages.count < 5, let message = await notify.next(timeout: 10) { messages.append(message) }
        let finished = await probe.finish(within: 10)
        #expect(finished.output == "delivered\n")
        #expect(messages.count == 5)
        guard messages.count == 5 else { return }
        #expect(messages[0] == "READY=1\nSTATUS=idle")
        #expect(messages[1].hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(UInt64(messages[1].split(separator: "=").last!) != nil)
        #expect(messages[2] == "STATUS=2 launches")
        #expect(messages[3] == "WATCHDOG=1")
        #expect(messages[4] == "STOPPING=1")
    }

    /// Checked in a child process: changing this process's environment would race with the
    /// tests that spawn processes in parallel.
    @Test func watchdogIntervalIsHalfOfWatchdogUsec() async throws {
        func interval(_ environment: [String: String]) async throws -> String {
            try await TestProcess.run(Self.probe, ["watchdog"], environment: environment, inherit: false).stdout
        }
        #expect(try await interval(["WATCHDOG_USEC": "3000000"]) == "1.5 seconds\n")
        #expect(try await interval([:]) == "off\n")
        // meant for another process
        #expect(try await interval(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "1"]) == "off\n")
    }
}
