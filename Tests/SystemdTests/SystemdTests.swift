#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Systemd

/// Against the real thing: libsystemd's sd_journal_sendv into a real systemd-journald (in a
/// private mount namespace), and sd_notify into a notify socket.
@Suite(.serialized) struct SystemdTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let probe: String = {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("systemd-probe")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
        }
        return dir.appendingPathComponent("systemd-probe").path
    }()
    static let canIsolate = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd-journald")

    /// Root is needed for the mount namespace; in CI (root) this never skips.
    func requireRoot() -> Bool {
        if Self.canIsolate { return true }
        if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("needs root and /lib/systemd/systemd-journald") }
        return false
    }

    func harness(_ mode: String) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--mount", "--propagation", "private", "python3", Self.here.appendingPathComponent("journal_harness.py").path, Self.probe, mode]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    @Test func structuredFieldsReachJournald() throws {
        guard requireRoot() else { return }
        let entry = try harness("log")
        #expect(entry["MESSAGE"] as? String == "launch revealed")
        #expect(entry["PRIORITY"] as? String == "5")
        #expect(entry["SYSLOG_IDENTIFIER"] as? String == "curtain-probe")
        #expect(entry["MESSAGE_ID"] as? String == "8d8e5a7f3c1a4b0e9f2d6c4b1a0e7d53")
        #expect(entry["CURTAIN_LAUNCH_ID"] as? String == "42")
        #expect(entry["CURTAIN_APP"] as? String == "shop")          // from the logger's metadata
        #expect(entry["CURTAIN_ROUTE"] as? String == "deeplink")    // "curtain.route" → CURTAIN_ROUTE
        #expect((entry["CODE_FILE"] as? String)?.hasSuffix("main.swift") == true)
        #expect(entry["CODE_FUNC"] != nil && entry["CODE_LINE"] != nil)
        #expect(entry["_TRUSTED"] == nil && entry["TRUSTED"] == nil)  // '_' keys are never sent
        #expect(entry["_TRANSPORT"] as? String == "journal")
    }

    @Test func withoutJournaldItFallsBackToStderr() throws {
        guard requireRoot() else { return }
        let result = try harness("fallback")
        #expect(result["status"] as? Int == 0)
        #expect(result["stderr"] as? String == "<5>curtain-probe: launch revealed _trusted=dropped curtain.route=deeplink curtain_app=shop curtain_launch_id=42 message_id=8d8e5a7f3c1a4b0e9f2d6c4b1a0e7d53\n")
    }

    @Test func fieldNames() {
        #expect(JournalLogHandler.fieldName("curtain_launch_id") == "CURTAIN_LAUNCH_ID")
        #expect(JournalLogHandler.fieldName("curtain.route") == "CURTAIN_ROUTE")
        #expect(JournalLogHandler.fieldName("_PID") == nil)
        #expect(JournalLogHandler.fieldName("1x") == nil)
        #expect(JournalLogHandler.fieldName(String(repeating: "a", count: 65)) == nil)
        #expect(JournalLogHandler.priority(.critical) == 2 && JournalLogHandler.priority(.trace) == 7)
    }

    /// sd_notify through libsystemd into a datagram socket, as the service manager sees it.
    @Test func notifierSendsEachState() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("s").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.probe)
        process.arguments = ["notify"]
        process.environment = ["NOTIFY_SOCKET": path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let messages: [String] = await withCheckedContinuation { continuation in
            Thread {
                var received: [String] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while received.count < 5 {
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 10_000) > 0 else { break }
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { break }
                    received.append(String(decoding: buffer[0..<n], as: UTF8.self))
                }
                continuation.resume(returning: received)
            }.start()
        }
        process.waitUntilExit()
        #expect(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "delivered\n")
        #expect(messages.count == 5)
        guard messages.count == 5 else { return }
        #expect(messages[0] == "READY=1\nSTATUS=idle")
        #expect(messages[1].hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(UInt64(messages[1].split(separator: "=").last!) != nil)
        #expect(messages[2] == "STATUS=2 launches")
        #expect(messages[3] == "WATCHDOG=1")
        #expect(messages[4] == "STOPPING=1")
    }

    @Test func watchdogIntervalIsHalfOfWatchdogUsec() {
        // sd_watchdog_enabled reads WATCHDOG_USEC (and WATCHDOG_PID if set) from the environment.
        setenv("WATCHDOG_USEC", "3000000", 1)
        defer { unsetenv("WATCHDOG_USEC") }
        #expect(Notifier().watchdogInterval == .milliseconds(1500))
        unsetenv("WATCHDOG_USEC")
        #expect(Notifier().watchdogInterval == nil)
    }
}
