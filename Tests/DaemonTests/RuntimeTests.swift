import CurtainTestKit
import Foundation
import Testing
import Varlink
import VarlinkNIO

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The real curtaind and its runtime directory: one instance per directory (the lock), the
/// notify socket gone after a clean exit, every process of an app stopped with it (a `setsid`
/// helper too, a launch cancelled while its app spawns too), and a restart after SIGKILL that
/// stops what the dead daemon left, fails its launch "daemon restarted" and goes on with ids.
@Suite(.serialized) struct RuntimeTests {
    static let apps = SupervisorTests.apps

    struct Setup {
        let directory: URL
        let config: String
        let socket: String
        /// Inside a directory that does not exist before curtaind starts.
        let notifySocket: String

        init(maxHold: Double = 30) throws {
            directory = TestEnvironment.temporaryDirectory("runtime")
            notifySocket = directory.appendingPathComponent("run/curtain/notify-apps").path
            socket = directory.appendingPathComponent("launcher.sock").path
            config = directory.appendingPathComponent("curtain.toml").path
            let text = """
                [daemon]
                notify_socket = "\(notifySocket)"
                min_hold = 0
                max_hold = \(maxHold)
                duplicate_window = 0
                on_timeout = "fail"

                [[apps]]
                name = "ready"
                exec = ["\(apps)/ready.sh", "--screen", "{screen}"]
                screens = ["home", "detail"]
                default_screen = "detail"

                """
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            try addApp("holder", script: "holder.sh")
        }

        func start(environment: [String: String] = [:]) async throws -> TestProcess {
            // One listener per start (a restart binds a new one), inside the test's directory.
            let listener = directory.appendingPathComponent("listener-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: listener, withIntermediateDirectories: true)
            let notify = NotifyListener(directory: listener)
            let process = try await TestProcess(
                TestEnvironment.product("curtaind"),
                ["--config", config, "--socket", socket],
                environment: environment.merging(["NOTIFY_SOCKET": notify.path]) { $1 }
            )
            #expect(await notify.await { $0.hasPrefix("READY=1") }.matched != nil, "\(process.output)")
            return process
        }

        /// Every event of a launch, until it ends (or the daemon goes away).
        func launch(_ app: String) async throws -> (id: Int64, events: [[String: JSONValue]]) {
            try await launch(route: ["normal": .string(app)])
        }

        func launch(route: JSONValue) async throws -> (id: Int64, events: [[String: JSONValue]]) {
            try await VarlinkConnection.withConnection(to: socket) { connection in
                var id: Int64 = 0
                var events: [[String: JSONValue]] = []
                for try await reply in connection.callMore("io.curtain.Launcher.Launch", ["route": route]) {
                    if case .int(let launch)? = reply["launch"]?["id"] { id = launch }
                    if case .object(let event)? = reply["event"] { events.append(event) }
                }
                return (id, events)
            }
        }

        func get(_ id: Int64) async throws -> [String: JSONValue] {
            try await VarlinkConnection.withConnection(to: socket) { connection in
                guard
                    case .object(let launch)? = try await connection.call("io.curtain.Launcher.Get", ["id": .int(id)])[
                        "launch"
                    ]
                else { return [:] }
                return launch
            }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        /// Adds app `name`: one of the test apps, given this setup's directory, never single.
        func addApp(_ name: String, script: String) throws {
            try addApp(name, exec: ["\(RuntimeTests.apps)/\(script)", directory.path])
        }

        func addApp(_ name: String, exec: [String]) throws {
            try append(
                """

                [[apps]]
                name = "\(name)"
                exec = [\(exec.map { "\"\($0)\"" }.joined(separator: ", "))]
                screens = ["home"]
                default_screen = "home"
                single_instance = false

                """
            )
        }

        /// Adds `text` at the end of the configuration.
        func append(_ text: String) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: config))
            defer { try? handle.close() }
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
        }

        /// The holder app of launch `id`: its own pid and its `setsid` helper's.
        func holderPids(_ id: Int64) throws -> [pid_t] {
            let text = try String(
                contentsOfFile: directory.appendingPathComponent("holder-\(id).pids").path,
                encoding: .utf8
            )
            return text.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
        }
    }

    /// curtaind runs with glibc's per-thread caches off (it executes itself again, once, with
    /// the tunable added to GLIBC_TUNABLES; not when the caller set a tcache count), and its
    /// apps get the environment it was started with.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [("glibc.malloc.arena_max=2", true), ("", true), ("glibc.malloc.tcache_count=3", false)]
    )
    func threadCachesAreOffAndAppsGetTheCallersEnvironment(tunables: String, executedAgain: Bool) async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try setup.addApp("env", script: "env.sh")
        let daemon = try await setup.start(environment: ["GLIBC_TUNABLES": tunables])
        let initial = try #require(POSIX.readFile("/proc/\(daemon.pid)/environ"))
            .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        // As the second run started (glibc's parser has since cut GLIBC_TUNABLES at its ':').
        #expect(initial.contains { $0.hasSuffix(Allocator.threadCachesOff) } == executedAgain, "\(initial)")
        #expect(initial.contains { $0.hasPrefix(Allocator.savedTunables + "=") } == executedAgain)
        // Executed again by its path: still named curtaind (for ps, pidof and the journal's _COMM).
        #expect(POSIX.readFile("/proc/\(daemon.pid)/comm").map { String(decoding: $0, as: UTF8.self) } == "curtaind\n")

        let launched = try await setup.launch("env")
        #expect(SupervisorTests.states(launched.events).last == "failed", "\(launched.events)")
        let seen = try String(
            contentsOfFile: setup.directory.appendingPathComponent("env-\(launched.id)").path,
            encoding: .utf8
        ).split(separator: "\n").map(String.init)
        #expect(seen.filter { $0.hasPrefix("GLIBC_TUNABLES=") } == ["GLIBC_TUNABLES=\(tunables)"], "\(seen)")
        #expect(!seen.contains { $0.hasPrefix(Allocator.savedTunables) })
        let said =
            executedAgain
            ? "allocator: glibc's thread caches off"
            : "allocator: glibc's thread caches as GLIBC_TUNABLES sets them (\(tunables))"
        #expect(daemon.output.contains(said), "\(daemon.output)")
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }

    /// An app starts in a session of its own with curtaind's stdin and nothing else of it:
    /// /dev/null in, one pipe for stdout and stderr, no other descriptor, no signal blocked or
    /// ignored (curtaind's threads block all, and it ignores SIGPIPE). One that cannot be
    /// executed fails its launch with the system's reason.
    @Test(.timeLimit(.minutes(1))) func appsStartCleanAndAnExecFailureFailsTheLaunch() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try setup.addApp("inspect", script: "inspect.sh")
        try setup.addApp("missing", exec: [setup.directory.appendingPathComponent("no-such-app").path])
        try setup.addApp("not-executable", exec: [setup.config])
        try setup.addApp("argv", exec: ["/bin/echo", "{param:story}"])
        try setup.append(
            """
            [[routes.push]]
            app = "argv"
            screen = "home"
            parameters = { story = "story" }

            """
        )
        let daemon = try await setup.start()

        let launched = try await setup.launch("inspect")
        #expect(SupervisorTests.states(launched.events).last == "revealed", "\(launched.events)")
        let pidFile = setup.directory.appendingPathComponent("inspect-\(launched.id).pid").path
        let pid = try #require(
            POSIX.readFile(pidFile).flatMap { pid_t(String(decoding: $0, as: UTF8.self).trimmingWhitespace()) }
        )
        let fds = try #require(POSIX.directoryEntries("/proc/\(pid)/fd")).sorted()
        let target = { (fd: String) in
            var buffer = [CChar](repeating: 0, count: 256)
            let n = readlink("/proc/\(pid)/fd/\(fd)", &buffer, buffer.count - 1)
            return n < 0 ? "" : String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        #expect(fds == ["0", "1", "2"], "\(fds.map { "\($0) \(target($0))" })")
        #expect(target("0") == "/dev/null")
        #expect(target("1").hasPrefix("pipe:") && target("1") == target("2"), "\(target("1")) \(target("2"))")
        let status = String(decoding: try #require(POSIX.readFile("/proc/\(pid)/status")), as: UTF8.self)
        let mask = { (field: String) in
            status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
                .flatMap { UInt64(String($0.dropFirst(field.count + 1)).trimmingWhitespace(), radix: 16) }
        }
        #expect(mask("SigBlk") == 0, "\(status)")
        // Every signal at its default, but glibc's own two (32 and 33, SIGCANCEL and SIGSETXID):
        // glibc 2.36's posix_spawn leaves them ignored in every child, whatever it is asked.
        let glibcInternal: UInt64 = 1 << 31 | 1 << 32
        #expect(mask("SigIgn").map { $0 & ~glibcInternal } == 0, "\(status)")
        let session = try #require(ProcessTree.entry(pid)).pid == pid && getsid(pid) == pid
        #expect(session, "session \(getsid(pid)) of \(pid)")

        // A push's parameter with a NUL byte, bound for an argument: refused at the call, as
        // no argument or variable can carry it; nothing is started (the supervisor's own check,
        // `AppCommandTests`, stands behind it).
        await #expect(
            throws: VarlinkError(
                "io.curtain.Launcher.InvalidRoute",
                [
                    "reason": "parameter 'story' contains a NUL byte, which no argument or environment value can carry"
                ]
            )
        ) {
            try await setup.launch(route: ["push": ["story": "a\u{0}b"], "push_app": "argv"])
        }

        for (app, reason) in [
            ("missing", "\(setup.directory.path)/no-such-app: No such file or directory"),
            ("not-executable", "\(setup.config): Permission denied"),
        ] {
            let failed = try await setup.launch(app)
            #expect(SupervisorTests.states(failed.events).last == "failed", "\(failed.events)")
            #expect(try await setup.get(failed.id)["reason"] == .string("app '\(app)' could not be started: \(reason)"))
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }

    /// A second curtaind with the same configuration exits 1 naming the lock and its holder,
    /// and touches nothing: the first one's apps still reach its notify socket. The first
    /// one created the notify socket's missing directory, and removes the socket on SIGTERM.
    @Test(.timeLimit(.minutes(1))) func aSecondDaemonChangesNothingAndACleanExitRemovesTheNotifySocket() async throws {
        let setup = try Setup(maxHold: 5)
        defer { setup.remove() }
        let first = try await setup.start()
        let second = try await TestProcess(
            TestEnvironment.product("curtaind"),
            ["--config", setup.config, "--socket", setup.socket]
        )
        let finished = await second.finish(within: 10)
        #expect(finished.status == 1)
        #expect(
            finished.output.contains(
                "another curtaind (pid \(first.pid)) holds \(setup.directory.path)/run/curtain/curtaind.lock"
            ),
            "\(finished.output)"
        )
        let (_, events) = try await setup.launch("ready")
        #expect(SupervisorTests.states(events).last == "revealed", "\(events)\n\(first.output)")

        first.signal(SIGTERM)
        #expect(await first.finish(within: 15).status == 0)
        #expect(!FileManager.default.fileExists(atPath: setup.notifySocket))
    }

    /// A helper the app started with `setsid` (a session and group of its own) is stopped
    /// with the app: when its launch is cancelled, and when the daemon stops.
    @Test(.timeLimit(.minutes(1))) func aSetsidGrandchildIsStoppedWithItsApp() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try await setup.start()
        let launched = Task { try await setup.launch("holder") }
        #expect(await daemon.waitFor("app of launch 1 holding", within: 10), "\(daemon.output)")
        let cancelled = try await setup.holderPids(1)
        #expect(cancelled.count == 2)
        _ = try await VarlinkConnection.withConnection(to: setup.socket) { connection in
            try await connection.call("io.curtain.Launcher.Control", ["id": 1, "action": "cancel"])
        }
        #expect(SupervisorTests.states(try await launched.value.events).last == "cancelled")
        for pid in cancelled { #expect(await SupervisorTests.exits(pid, within: 10), "\(pid)") }

        let second = Task { try await setup.launch("holder") }
        #expect(await daemon.waitFor("app of launch 2 holding", within: 10), "\(daemon.output)")
        let stopped = try setup.holderPids(2)
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
        _ = try? await second.value
        for pid in stopped { #expect(await SupervisorTests.exits(pid, within: 10), "\(pid)") }
    }

    /// A launch cancelled the moment its request is answered: the release reaches the
    /// supervisor while the app is being spawned (or before its start), and the app is
    /// stopped once it registers (or never started) — not left running.
    @Test(.timeLimit(.minutes(1))) func aLaunchCancelledAtOnceLeavesNoApp() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try await setup.start()
        try await VarlinkConnection.withConnection(to: setup.socket) { control in
            try await VarlinkConnection.withConnection(to: setup.socket) { connection in
                for id in Int64(1)...4 {
                    var cancelled = false
                    for try await reply in connection.callMore(
                        "io.curtain.Launcher.Launch",
                        ["route": ["normal": "holder"]]
                    ) {
                        if !cancelled, case .int(let launch)? = reply["launch"]?["id"] {
                            #expect(launch == id)
                            cancelled = true
                            _ = try await control.call(
                                "io.curtain.Launcher.Control",
                                ["id": .int(id), "action": "cancel"]
                            )
                        }
                    }
                    // The app ran (and wrote its pids), or the supervisor said what it did with
                    // it: not started, stopped once registered, or released.
                    #expect(await daemon.waitFor("app of launch \(id) ", within: 10), "\(daemon.output)")
                    guard let pids = try? setup.holderPids(id) else { continue }
                    for pid in pids { #expect(await SupervisorTests.exits(pid, within: 10), "launch \(id): \(pid)") }
                }
            }
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }

    /// curtaind SIGKILLed while a launch holds, then started again (systemd's
    /// Restart=on-failure): the old app and its helper are stopped, the launch is failed
    /// "daemon restarted" in the new daemon's history, and ids go on.
    @Test(.timeLimit(.minutes(1))) func aRestartAfterSIGKILLStopsTheOldAppsAndFailsTheirLaunch() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let crashed = try await setup.start()
        let launched = Task { try await setup.launch("holder") }
        #expect(await crashed.waitFor("app of launch 1 holding", within: 10), "\(crashed.output)")
        // Registered (and so recorded in the state file): the app's own output may come first.
        #expect(await crashed.waitFor("app started", within: 10), "\(crashed.output)")
        let left = try setup.holderPids(1)
        crashed.signal(SIGKILL)
        _ = await crashed.finish(within: 10)
        _ = try? await launched.value
        for pid in left { #expect(kill(pid, 0) == 0, "\(pid) should still run after the SIGKILL") }

        let restarted = try await setup.start()
        for pid in left { #expect(await SupervisorTests.exits(pid, within: 10), "\(pid)") }
        let old = try await setup.get(1)
        #expect(old["state"] == "failed" && old["reason"] == "daemon restarted", "\(old)")
        let (id, events) = try await setup.launch("ready")
        #expect(id == 2 && SupervisorTests.states(events).last == "revealed", "\(id) \(events)")
        restarted.signal(SIGTERM)
        #expect(await restarted.finish(within: 15).status == 0)
    }
}
