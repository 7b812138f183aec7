import CurtainTestKit
import Foundation
import Testing

/// Apps as systemd units (`[[apps]] unit = …`, docs/units.md) under a real systemd 252 booted
/// once for the suite: curtaind as installed — its sandbox, the `curtain` user — starts,
/// watches and stops them through systemd's D-Bus API, allowed by the polkit rule generated
/// for the configured units. Root only; in CI never skipped.
@Suite(
    .serialized,
    .enabled(if: TestEnvironment.isRoot || TestEnvironment.inCI, "boots systemd in namespaces: needs root"),
    InstalledUnitApps()
)
struct AppUnitTests {
    var systemd: ContainedSystemd { ContainedSystemd.current! }

    static let maxHold = 2.0
    static let configuration = """
        [daemon]
        min_hold = 0
        max_hold = \(maxHold)
        on_timeout = "fail"

        [[apps]]
        name = "shop"
        unit = "curtain-test-shop@{screen}.service"
        screens = ["home", "cart"]

        [[apps]]
        name = "crash"
        unit = "curtain-test-crash.service"

        [[apps]]
        name = "hang"
        unit = "curtain-test-hang.service"

        [[apps]]
        name = "still"
        unit = "curtain-test-still.service"
        warm = "reveal-now"

        [[apps]]
        name = "staged"
        unit = "curtain-test-staged.service"
        readiness = "content"

        [[apps]]
        name = "staged-late"
        unit = "curtain-test-staged-late.service"
        readiness = "ready"

        [[apps]]
        name = "attached"
        unit = "curtain-test-attached.service"

        """
    /// A Type=notify app that only tells systemd READY=1 (curtain-demo-app, no io.curtain.App).
    static let shopUnit = """
        [Service]
        Type=notify
        NotifyAccess=main
        EnvironmentFile=-/run/curtain/units/%n.env
        ExecStart=/usr/bin/curtain-demo-app --load 0.2 --screen %i

        """
    static let stillUnit = shopUnit.replacingOccurrences(of: "--screen %i", with: "")
    /// Fails before it is ready, with a status of its own.
    static let crashUnit = "[Service]\nType=notify\nExecStart=/bin/sh -c 'exit 3'\n"
    /// Never ready; systemd would wait a minute, Curtain max_hold.
    static let hangUnit = "[Service]\nType=notify\nTimeoutStartSec=60\nExecStart=/bin/sleep infinity\n"
    /// Reports `content` to curtaind's notify socket (given in its destination file), never
    /// READY=1: systemd keeps it activating. `systemd-notify --pid=$$` sends as the shell,
    /// which then becomes the waiting process: the sender is alive when curtaind asks systemd
    /// which unit it is in. (systemd turns `$$` into `$`, so the shell expands the variables.)
    static let stagedUnit = """
        [Service]
        Type=notify
        NotifyAccess=all
        TimeoutStartSec=60
        EnvironmentFile=-/run/curtain/units/%n.env
        ExecStart=/bin/sh -c 'NOTIFY_SOCKET=$$CURTAIN_NOTIFY_SOCKET systemd-notify --pid=$$$$ X_CURTAIN_STAGE=content STATUS=content-shown && exec sleep infinity'

        """
    /// Attached over io.curtain.App while it loads (curtain-demo-app --attach): later launches
    /// are delivered to it, and it prints what each delivery asks it to hide.
    static let attachedUnit = shopUnit.replacingOccurrences(
        of: "--load 0.2 --screen %i",
        with: "--load 1 --attach"
    )
    /// Not configured: the polkit rule must refuse it.
    static let otherUnit = "[Service]\nType=oneshot\nExecStart=/bin/true\n"

    static var files: [String: String] {
        [
            "/etc/curtain/curtain.toml": configuration,
            "/etc/systemd/system/curtain-test-shop@.service": shopUnit,
            "/etc/systemd/system/curtain-test-still.service": stillUnit,
            "/etc/systemd/system/curtain-test-crash.service": crashUnit,
            "/etc/systemd/system/curtain-test-hang.service": hangUnit,
            "/etc/systemd/system/curtain-test-staged.service": stagedUnit,
            "/etc/systemd/system/curtain-test-staged-late.service": stagedUnit,
            "/etc/systemd/system/curtain-test-other.service": otherUnit,
            "/etc/systemd/system/curtain-test-attached.service": attachedUnit,
        ]
    }

    /// `curtainctl launch --normal APP --follow`, as root in the container: its output and status.
    func launch(_ app: String) async throws -> (ContainedSystemd.Result, id: Int?) {
        let result = try await systemd.run(["curtainctl", "launch", "--normal", app, "--follow", "--json", "short"])
        let id = result.stdout.split(separator: "\n").lazy
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["launch"] as? Int }.first
        return (result, id)
    }

    func unit(_ name: String) async throws -> [String: String] {
        try await systemd.properties(name, ["ActiveState", "SubState", "MainPID", "Result", "ExecMainStatus"])
    }

    @Test("cold start: curtaind starts the unit, READY=1 to systemd reveals it, the destination reached the app")
    func coldStartToRevealed() async throws {
        let (launch, id) = try await launch("shop")
        #expect(launch.status == 0, "not revealed: \(launch)")
        let state = try await unit("curtain-test-shop@home.service")
        #expect(state["ActiveState"] == "active", "\(state)")
        let pid = try #require(state["MainPID"])
        let environ = try await systemd.run(["cat", "/proc/\(pid)/environ"])
        let variables = Set(environ.stdout.split(separator: "\0").map(String.init))
        #expect(variables.contains("CURTAIN_LAUNCH_ID=\(id ?? -1)"), "\(variables)")
        #expect(variables.contains("CURTAIN_SCREEN=home") && variables.contains("CURTAIN_APP=shop"), "\(variables)")
        // curtaind ran in its sandbox as its own user: systemd accepted it only through polkit.
        let user = try await systemd.properties("curtaind.service", ["User", "ActiveState"])
        #expect(user["User"] == "curtain" && user["ActiveState"] == "active", "\(user)")
    }

    @Test("a unit failing before it is ready fails the launch with systemd's Result and exit status")
    func crashBeforeReady() async throws {
        let (launch, _) = try await launch("crash")
        #expect(launch.status != 0, "\(launch)")
        #expect(launch.stdout.contains("Result=exit-code, exit status 3"), "\(launch)")
    }

    @Test("a unit that never becomes ready fails at max_hold and is stopped")
    func hangPastMaxHold() async throws {
        let journal = try await systemd.followJournal("-u", "curtain-test-hang.service")
        defer { journal.signal(SIGTERM) }
        let started = ContinuousClock.now
        let (launch, _) = try await launch("hang")
        #expect(launch.status != 0, "\(launch)")
        #expect(ContinuousClock.now - started >= .seconds(Self.maxHold), "failed before max_hold: \(launch)")
        // The launch released its app: curtaind asked systemd to stop the unit.
        #expect(await journal.waitFor("Stopped curtain-test-hang.service", within: 15), "\(journal.output)")
        #expect(try await unit("curtain-test-hang.service")["ActiveState"] == "inactive")
    }

    @Test(
        "a unit's X_CURTAIN_STAGE on curtaind's notify socket, attributed by pid through systemd, reveals an app whose readiness it meets"
    )
    func stageFromUnit() async throws {
        let (launch, _) = try await launch("staged")
        #expect(launch.status == 0, "not revealed: \(launch)")
        // Revealed on the stage alone: systemd never heard READY=1.
        #expect(try await unit("curtain-test-staged.service")["ActiveState"] == "activating")
        _ = try await systemd.systemctl("stop", "curtain-test-staged.service")
    }

    @Test("the same stage does not reveal an app that waits for ready: it fails at max_hold")
    func stageBelowReadiness() async throws {
        let (launch, _) = try await launch("staged-late")
        #expect(launch.status != 0, "revealed by a stage below its readiness: \(launch)")
    }

    @Test("warm start: reveal-now reveals the running unit as it is; restart (the default) restarts it")
    func warmStart() async throws {
        let (first, _) = try await launch("still")
        #expect(first.status == 0, "\(first)")
        let before = try await unit("curtain-test-still.service")["MainPID"]
        let (second, _) = try await launch("still")
        #expect(second.status == 0, "\(second)")
        #expect(try await unit("curtain-test-still.service")["MainPID"] == before, "reveal-now restarted it")

        let (cold, _) = try await launch("shop")
        #expect(cold.status == 0, "\(cold)")
        let shopBefore = try await unit("curtain-test-shop@home.service")
        let (restart, id) = try await launch("shop")
        #expect(restart.status == 0, "\(restart)")
        let shopAfter = try await unit("curtain-test-shop@home.service")
        #expect(
            shopAfter["ActiveState"] == "active" && shopAfter["MainPID"] != shopBefore["MainPID"],
            "\(shopBefore) → \(shopAfter)"
        )
        let environ = try await systemd.run(["cat", "/proc/\(shopAfter["MainPID"] ?? "0")/environ"])
        #expect(
            environ.stdout.contains("CURTAIN_LAUNCH_ID=\(id ?? -1)"),
            "the restarted unit has the new launch's destination"
        )
    }

    @Test(
        "warm start of an attached unit under logo-move: the delivery tells it to hide the logo the reveal flies onto"
    )
    func attachedUnitHidesTheReveal() async throws {
        // logo-move for this test only, through a reload (the suite's other launches keep
        // the default reveal); restored at the end.
        let configuration = "/etc/curtain/curtain.toml"
        let moving = Self.configuration + "\n[transitions]\nreveal = \"logo-move\"\n"
        func use(_ text: String) async throws {
            let written = try await systemd.run(["sh", "-c", "printf '%s' \"$1\" > \"$2\"", "sh", text, configuration])
            #expect(written.status == 0, "\(written)")
            let reloaded = try await systemd.run(["curtainctl", "reload"])
            #expect(reloaded.status == 0, "\(reloaded)")
        }
        try await use(moving)
        do {
            let (cold, _) = try await launch("attached")
            #expect(cold.status == 0, "\(cold)")
            let (warm, id) = try await launch("attached")
            #expect(warm.status == 0, "\(warm)")
            // The unit's own words (its stdout in the journal): the route came as a delivery
            // with the hide list, not as a restart.
            func delivered(_ journal: String) -> Bool {
                journal.split(separator: "\n").contains {
                    $0.hasPrefix("warm start: launch \(id ?? -1) screen ") && $0.hasSuffix(" hides logo until revealed")
                }
            }
            var journal = ""
            for _ in 0..<50 {
                journal = try await systemd.journalctl("-u", "curtain-test-attached.service", "-o", "cat").stdout
                if delivered(journal) { break }
                try await Task.sleep(for: .milliseconds(100))  // ok-sleep: a bounded poll of the journal
            }
            #expect(delivered(journal), "\(journal)")
        }
        try await use(Self.configuration)
    }

    @Test("the polkit rule lets the curtain user manage the configured units and no other")
    func polkitRule() async throws {
        let allowed = try await systemd.run([
            "runuser", "-u", "curtain", "--", "systemctl", "--no-ask-password", "restart", "curtain-test-still.service",
        ])
        #expect(allowed.status == 0, "\(allowed)")
        let refused = try await systemd.run([
            "runuser", "-u", "curtain", "--", "systemctl", "--no-ask-password", "start", "curtain-test-other.service",
        ])
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.stderr.contains("denied") || refused.stderr.contains("authentication required"), "\(refused)")
        #expect(try await unit("curtain-test-other.service")["ActiveState"] == "inactive")
        // A configured unit with a verb curtaind never uses.
        let reload = try await systemd.run([
            "runuser", "-u", "curtain", "--", "systemctl", "--no-ask-password", "kill", "curtain-test-still.service",
        ])
        #expect(reload.status != 0, "\(reload)")
    }
}

/// Boots the container with curtaind installed, the test units and a configuration of unit
/// apps, and the polkit rule generated for it (as an administrator would after editing the
/// apps), once for the suite.
struct InstalledUnitApps: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await ContainedSystemd.withInstallation(files: AppUnitTests.files) {
            let systemd = ContainedSystemd.current!
            let rule = try await systemd.run(["curtainctl", "config", "polkit-rule", "/etc/curtain/curtain.toml"])
            try rule.check("curtainctl config polkit-rule")
            try await systemd.write(rule.stdout, to: "/etc/polkit-1/rules.d/50-curtain.rules").check(
                "write the polkit rule"
            )
            try await function()
        }
    }
}
