import CurtainDaemon
import CurtainTestKit
import Foundation
import Testing

/// curtaind as shipped — `make install`'s units, sysusers, tmpfiles and catalog files, its
/// sandbox — under a real systemd 252 booted once for the suite (ContainedSystemd,
/// docs/testing.md): socket activation, Type=notify readiness, reload, the watchdog, a clean
/// stop, and what it writes to the journal. Root only; in CI never skipped (a missing root is
/// a failure there).
@Suite(
    .serialized,
    .enabled(if: TestEnvironment.isRoot || TestEnvironment.inCI, "boots systemd in namespaces: needs root"),
    InstalledCurtaind()
)
struct CurtaindUnitTests {
    var systemd: ContainedSystemd { ContainedSystemd.current! }

    static let configuration = "/etc/curtain/curtain.toml"
    static let socket = "/run/curtain/io.curtain.Launcher"
    /// What the suite's drop-in sets: a short watchdog (the wedge test waits for it to fire),
    /// the test-only wedge switch (inert until the signal comes), no core files, and no Swift
    /// crash backtrace on the watchdog's SIGABRT (symbolicating the debug build takes ~15 s).
    static let watchdogSeconds = 3
    static let dropIn = """
        [Service]
        WatchdogSec=\(watchdogSeconds)s
        Environment=CURTAIN_TEST_WEDGE_ON=SIGUSR2
        LimitCORE=0
        Environment=SWIFT_BACKTRACE=enable=no

        """

    /// curtaind's state as systemd has it.
    func service() async throws -> [String: String] {
        try await systemd.properties(
            "curtaind.service",
            ["ActiveState", "SubState", "MainPID", "NRestarts", "StatusText", "Result", "ExecMainStatus"]
        )
    }

    /// A Varlink call from the host, through the container's root (/proc/PID/root): as root.
    func call(_ method: String, _ parameters: String = "{}") async -> String? {
        await rawVarlinkCall(
            "/proc/\(systemd.pid1)/root\(Self.socket)",
            #"{"method":"io.curtain.Launcher.\#(method)","parameters":\#(parameters)}"#
        )
    }

    /// Makes sure curtaind runs (a Ping activates it through the socket).
    func activate() async throws {
        try await systemd.run(["curtainctl", "ping"]).check("curtainctl ping")
    }

    /// The unit lets the frame clock's thread, and no other, run real-time (LimitRTPRIO=1,
    /// sched_setattr allowed, RestrictRealtime=no), as the unprivileged user `curtain`. systemd
    /// raises the hard RLIMIT_RTPRIO for that, which needs CAP_SYS_RESOURCE: where even root
    /// lacks it (this VM's bounding set has no CAP_SYS_RESOURCE), the limit stays 0 and the
    /// thread must report the fallback, a short time slice, with real-time refused (EPERM).
    func frameClockScheduling(pid: String) async throws {
        let limits = try await systemd.properties(
            "curtaind.service",
            ["LimitRTPRIO", "LimitRTTIME", "RestrictRealtime"]
        )
        #expect(limits == ["LimitRTPRIO": "1", "LimitRTTIME": "5000000", "RestrictRealtime": "no"], "\(limits)")
        let threads = try await systemd.run(["ps", "-L", "-o", "comm=,cls=", "-p", pid])
        let classes = threads.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        // curtaind executed itself again with glibc's thread caches off (Allocator).
        let allocator = try await systemd.journalctl("-u", "curtaind", "-o", "cat", "--grep", "allocator:")
        #expect(allocator.stdout.contains("allocator: glibc's thread caches off"), "\(allocator)")
        let said = try await systemd.journalctl("-u", "curtaind", "-o", "cat", "--grep", "frame clock")
        if Self.canRaiseHardLimits {
            #expect(said.stdout.contains("frame clock: real-time (SCHED_FIFO, priority 1)"), "\(said)")
            #expect(classes.contains(["frame-clock", "FF"]), "\(threads)")
            #expect(classes.filter { $0.last != "TS" }.count == 1, "another thread is not time-shared: \(threads)")
        } else {
            #expect(
                said.stdout.contains(
                    "frame clock: time-shared with a 100 µs slice (real-time refused: Operation not permitted)"
                ),
                "\(said)"
            )
            #expect(classes.allSatisfy { $0.last == "TS" } && classes.contains(["frame-clock", "TS"]), "\(threads)")
        }
    }

    /// Whether this machine's root may raise a hard resource limit (CAP_SYS_RESOURCE, bit 24,
    /// in the bounding set: the contained systemd has the same).
    static var canRaiseHardLimits: Bool {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapBnd:") }),
            let mask = UInt64(line.dropFirst("CapBnd:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << 24) != 0
    }

    @Test("a connection to curtaind.socket starts curtaind; it is active only after READY=1")
    func socketActivation() async throws {
        let socket = try await systemd.properties("curtaind.socket", ["ActiveState", "SubState"])
        #expect(socket["ActiveState"] == "active" && socket["SubState"] == "listening", "\(socket)")
        let before = try await service()
        #expect(before["ActiveState"] == "inactive", "started before anyone connected: \(before)")

        let ping = try await systemd.run(["curtainctl", "ping"])
        #expect(ping.status == 0, "\(ping)")
        // Type=notify: the start job (and the ping's wait) ends once READY=1 came.
        let after = try await service()
        #expect(after["ActiveState"] == "active" && after["SubState"] == "running", "\(after)")
        #expect(Int(after["MainPID"] ?? "0") ?? 0 > 0)
        #expect(after["StatusText"]?.isEmpty == false, "no STATUS= line: \(after)")
        try await frameClockScheduling(pid: after["MainPID"] ?? "0")
        let ready = try await systemd.journalctl(
            "-u",
            "curtaind",
            "-o",
            "cat",
            "MESSAGE_ID=\(LogEvent.daemonReady.messageID)"
        )
        #expect(ready.stdout.contains("ready"), "\(ready)")
        // The demo apps' user exists and owns the runtime directory (sysusers, tmpfiles).
        let owner = try await systemd.run(["stat", "-c", "%U %a", "/run/curtain"])
        #expect(owner.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "curtain 755", "\(owner)")
    }

    @Test("systemctl reload: a good file is taken, a broken one refused while the old one stays in force")
    func reload() async throws {
        try await activate()
        let pid = try await service()["MainPID"]
        let original = try await systemd.run(["cat", Self.configuration])
        try original.check("cat the configuration")
        // The shipped file comes back whatever happens: the other tests use it.
        var failure: (any Error)?
        do { try await reloadGoodThenBroken(original.stdout, pid: pid) } catch { failure = error }
        try await systemd.write(original.stdout, to: Self.configuration).check("restore the configuration")
        try await systemd.systemctl("reload", "curtaind").check("systemctl reload (restored)")
        if let failure { throw failure }
    }

    func reloadGoodThenBroken(_ original: String, pid: String?) async throws {
        let resolve = #"{"route":{"deeplink":"test://reloaded"}}"#
        // Before: the link is unmatched and goes to the fallback.
        #expect(await call("Resolve", resolve)?.contains(#""reason":"unmatched""#) == true)

        let good =
            original + """

                [[routes.deeplink]]
                pattern = "test://reloaded"
                app = "chat"
                screen = "inbox"

                """
        try await systemd.write(good, to: Self.configuration).check("write the good file")
        let journal = try await systemd.followJournal("-u", "curtaind")
        defer { journal.signal(SIGTERM) }
        try await systemd.systemctl("reload", "curtaind").check("systemctl reload (good)")
        #expect(await journal.waitFor("configuration reloaded", within: 15), "\(journal.output)")
        #expect(try await service()["StatusText"]?.contains("configuration reloaded") == true)
        #expect(await call("Resolve", resolve)?.contains(#""app":"chat""#) == true)

        try await systemd.write(good + "\n[daemon\nbroken = \n", to: Self.configuration).check("write the broken file")
        try await systemd.systemctl("reload", "curtaind").check("systemctl reload (broken)")
        #expect(await journal.waitFor("reload refused", within: 15), "\(journal.output)")
        let after = try await service()
        #expect(after["StatusText"]?.contains("reload refused") == true, "\(after)")
        #expect(after["ActiveState"] == "active" && after["MainPID"] == pid, "\(after)")
        // The good file's route is still in force.
        #expect(await call("Resolve", resolve)?.contains(#""app":"chat""#) == true)
    }

    @Test("a launch spawns the demo app inside the sandbox; the journal has its fields and MESSAGE_IDs")
    func launchInTheJournal() async throws {
        try await activate()
        let launch = try await systemd.run(["curtainctl", "launch", "--normal", "shop", "--follow", "--json", "short"])
        #expect(launch.status == 0, "the launch was not revealed: \(launch)")
        let id = launch.stdout.split(separator: "\n").lazy
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["launch"] as? Int }.first
        let launchID = try #require(id, "no launch id in \(launch.stdout)")

        let entries = try await systemd.journalctl("-u", "curtaind", "-o", "json", "CURTAIN_LAUNCH_ID=\(launchID)")
        let fields = entries.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let ids = Set(fields.compactMap { $0["MESSAGE_ID"] as? String })
        for event in [LogEvent.launchRequested, .appReady, .launchRevealed] {
            #expect(ids.contains(event.messageID), "no \(event) (\(event.messageID)) in \(entries.stdout)")
        }
        let requested = fields.first { $0["MESSAGE_ID"] as? String == LogEvent.launchRequested.messageID }
        #expect(requested?["CURTAIN_APP"] as? String == "shop", "\(requested ?? [:])")
        #expect(requested?["_SYSTEMD_UNIT"] as? String == "curtaind.service")
    }

    @Test("the message catalog is installed: journalctl knows every MESSAGE_ID curtaind logs")
    func catalog() async throws {
        let list = try await systemd.journalctl("--list-catalog")
        try list.check("journalctl --list-catalog")
        for event in LogEvent.allCases {
            // journalctl prints the IDs without dashes, in lower case.
            #expect(list.stdout.contains(event.messageID), "\(event) (\(event.messageID)) is not in the catalog")
        }
    }

    @Test("WatchdogSec restarts a wedged curtaind (the test-only CURTAIN_TEST_WEDGE_ON switch)")
    func watchdogRestartsAWedgedDaemon() async throws {
        try await activate()
        let before = try await service()
        let journal = try await systemd.followJournal("-u", "curtaind")
        try await systemd.systemctl("kill", "--kill-whom=main", "--signal=SIGUSR2", "curtaind").check(
            "systemctl kill -s SIGUSR2"
        )
        // Pings stop; systemd says so after WatchdogSec, kills it (SIGABRT) and starts it again.
        #expect(
            await journal.waitFor("Watchdog timeout", within: Double(Self.watchdogSeconds) + 15),
            "\(journal.output)"
        )
        #expect(await journal.waitFor("Started curtaind.service", within: 30), "\(journal.output)")
        await journal.stop()
        let after = try await service()
        #expect(after["ActiveState"] == "active", "\(after)")
        #expect(after["MainPID"] != before["MainPID"], "\(before) → \(after)")
        #expect(
            (Int(after["NRestarts"] ?? "0") ?? 0) == (Int(before["NRestarts"] ?? "0") ?? 0) + 1,
            "\(before) → \(after)"
        )
        try await activate()
    }

    @Test("systemctl stop: curtaind stops cleanly (exit 0) and the socket stays for the next client")
    func cleanStop() async throws {
        try await activate()
        try await systemd.systemctl("stop", "curtaind").check("systemctl stop curtaind")
        let stopped = try await service()
        #expect(
            stopped["ActiveState"] == "inactive" && stopped["Result"] == "success" && stopped["ExecMainStatus"] == "0",
            "\(stopped)"
        )
        let stopping = try await systemd.journalctl(
            "-u",
            "curtaind",
            "-o",
            "cat",
            "MESSAGE_ID=\(LogEvent.daemonStopping.messageID)"
        )
        #expect(!stopping.stdout.isEmpty, "no daemonStopping entry")
        let socket = try await systemd.properties("curtaind.socket", ["ActiveState"])
        #expect(socket["ActiveState"] == "active", "\(socket)")
    }
}

/// Boots the container with curtaind installed, once for the suite.
struct InstalledCurtaind: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await ContainedSystemd.withInstallation(files: [
            "/etc/systemd/system/curtaind.service.d/test.conf": CurtaindUnitTests.dropIn
        ]) {
            try await function()
        }
    }
}
