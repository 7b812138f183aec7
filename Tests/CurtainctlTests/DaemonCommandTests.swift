import CurtainTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// curtainctl's daemon commands against a real curtaind (apps external: readiness never
/// comes unless a test sends it, so launches stay in flight until steered).
@Suite(.serialized) struct DaemonCommandTests {
    static func daemon() async throws -> (TestProcess, socket: String) {
        let directory = TestEnvironment.temporaryDirectory("ctl")
        let config = directory.appendingPathComponent("curtain.toml").path
        try """
        [daemon]
        notify_socket = "\(directory.path)/notify-apps"
        max_hold = 30
        [[apps]]
        name = "shop"
        screens = ["home", "product"]
        default_screen = "home"
        [[routes.deeplink]]
        pattern = "shop://product/<int:id>"
        app = "shop"
        screen = "product"

        # An appear that outlasts the test, so launch 1 is still presenting when steered.
        [transitions.appear]
        name = "slow"
        [[transitions.appear.animations]]
        layer = "splash"
        property = "opacity"
        from = 0
        to = 1
        duration = 600
        fill = "forwards"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let notify = NotifyListener(directory: directory)
        let socket = directory.appendingPathComponent("s").path
        let process = try await TestProcess(
            TestEnvironment.product("curtaind"),
            ["--config", config, "--socket", socket],
            environment: ["NOTIFY_SOCKET": notify.path]
        )
        #expect(await notify.await { $0.hasPrefix("READY=1") }.matched != nil, "\(process.output)")
        return (process, socket)
    }

    static func ctl(
        _ socket: String,
        _ arguments: String...
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ctl(socket, arguments)
    }

    static func ctl(
        _ socket: String,
        _ arguments: [String]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await TestProcess.run(CLI.executable, arguments, environment: ["CURTAIN_SOCKET": socket])
    }

    static func json(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }
    func json(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test(.timeLimit(.minutes(1))) func everyCommandAgainstARealDaemon() async throws {
        let (daemon, socket) = try await Self.daemon()

        let ping = try await Self.ctl(socket, "ping", "--json", "short")
        #expect(ping.status == 0 && (json(ping.stdout) as? [String: Any])?["socket"] as? String == socket, "\(ping)")

        let fast = try await Self.ctl(socket, "ping", "--socket", socket)  // the fast path, without ArgumentParser
        #expect(fast.status == 0 && fast.stdout.hasPrefix("pong from \(socket) in "), "\(fast)")

        let infoJSON = try await Self.ctl(socket, "info", "--json", "short")
        #expect((json(infoJSON.stdout) as? [String: Any])?["product"] as? String == "curtaind", "\(infoJSON)")
        let reload = try await Self.ctl(socket, "reload")
        #expect(reload.status == 0 && reload.stdout.hasPrefix("reloaded: 1 app, 1 deep-link rule"), "\(reload)")
        let statistics = try await Self.ctl(socket, "status", "--json", "short")
        #expect(
            ((json(statistics.stdout) as? [String: Any])?["statistics"] as? [String: Any])?["requested"] as? Int == 0
        )

        let info = try await Self.ctl(socket, "info")
        #expect(
            info.stdout.contains("Interfaces: io.curtain.App, io.curtain.Launcher, org.varlink.service"),
            "\(info.stdout)"
        )

        let launched = try await Self.ctl(socket, "launch", "--deeplink", "shop://product/42")
        #expect(
            launched.status == 0 && launched.stdout == "launch 1 started: shop/product (presenting)\n",
            "\(launched)"
        )

        let list = try await Self.ctl(socket, "list", "--json", "short")
        let launches = json(list.stdout) as? [[String: Any]]
        #expect(launches?.count == 1 && launches?.first?["id"] as? Int == 1)
        let table = try await Self.ctl(socket, "list", "--no-legend")
        #expect(table.stdout.hasPrefix("1  ") && !table.stdout.contains("STATE"), "\(table.stdout)")

        let status = try await Self.ctl(socket, "status", "1", "--json", "pretty")
        #expect((json(status.stdout) as? [String: Any])?["state"] != nil && status.stdout.contains("\n  \""))
        // In words, with its scene (GetScene): the shipped one, found in the source tree.
        let words = try await Self.ctl(socket, "status", "1")
        #expect(
            words.stdout.contains(
                "     Scene: \(TestEnvironment.repository.appendingPathComponent("scenes/yula/yula.scene.json").path) (sha256 "
            ),
            "\(words)"
        )

        // watch, piped: JSON lines; it ends with the launch, which a control cancels.
        async let watched = Self.ctl(socket, "watch", "1")
        let seek = try await Self.ctl(socket, "control", "1", "seek", "0.5")
        #expect(seek.status == 0 && seek.stdout.hasPrefix("launch 1: "), "\(seek)")
        // Back at the start, a cancel has nothing to play back: the launch ends at once.
        #expect(try await Self.ctl(socket, "control", "1", "seek", "0").status == 0)
        let cancel = try await Self.ctl(socket, "control", "1", "cancel")
        #expect(cancel.status == 0)
        let lines = try await watched.stdout.split(separator: "\n").compactMap { json(String($0)) as? [String: Any] }
        #expect(lines.last?["to"] as? String == "cancelled", "\(lines)")

        // launch --follow exits 1 for a launch that does not end revealed.
        async let followed = Self.ctl(socket, "launch", "--normal", "shop", "--follow")
        var cancelled = false
        for _ in 0..<200 where !cancelled {  // bounded: the launch exists once `status 2` answers
            cancelled = try await Self.ctl(socket, "control", "2", "cancel").status == 0
        }
        let follow = try await followed
        #expect(follow.status == 1, "\(follow)")

        let refused = try await Self.ctl(socket, "control", "1", "pause")
        #expect(
            refused.status == 1 && refused.stderr.hasPrefix("curtainctl: io.curtain.Launcher.InvalidControl"),
            "\(refused)"
        )
        let usage = try await Self.ctl(socket, "launch", "--normal", "a", "--deeplink", "b")
        #expect(usage.status == 2)

        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }

    /// A truncated file (a power cut mid-write) must not drop every app: refused unless asked.
    @Test(.timeLimit(.minutes(1))) func reloadRefusesAnEmptyFileUnlessAllowed() async throws {
        let (daemon, socket) = try await Self.daemon()
        let config = (socket as NSString).deletingLastPathComponent + "/curtain.toml"
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try await Self.ctl(socket, "reload")
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.stderr.contains("io.curtain.Launcher.ReloadRefused")
                && refused.stderr.contains("the new configuration has no apps")
                && refused.stderr.contains("--allow-empty"),
            "\(refused)"
        )
        // Nothing changed: the app is still there.
        let launched = try await Self.ctl(socket, "launch", "--normal", "shop")
        #expect(launched.status == 0 && launched.stdout.hasPrefix("launch 1 started: shop/home"), "\(launched)")
        let allowed = try await Self.ctl(socket, "reload", "--allow-empty")
        #expect(allowed.status == 0 && allowed.stdout.hasPrefix("reloaded: 0 apps"), "\(allowed)")
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }

    /// The shipped configuration and the demo app agree: every shipped route reaches
    /// `revealed`, cold (the app starts behind the overlay) and warm (delivered to it).
    @Test(.timeLimit(.minutes(2))) func everyShippedRouteRevealsColdAndWarm() async throws {
        let routes: [[String]] = [
            ["--normal", "shop"], ["--normal", "chat"],
            ["--deeplink", "shop://product/sale"], ["--deeplink", "shop://product/42?ref=mail"],
            ["--deeplink", "shop://search/red/shoes"],
            ["--deeplink", "chat://thread/3f0c6a57-9f6e-4c1b-8d2e-3a4b5c6d7e8f"],
            ["--push", #"{"aps": {"category": "chat"}, "target": {"thread": "t-1"}}"#],
            ["--push", #"{"aps": {"category": "chat"}}"#],
            ["--deeplink", "shop://cart"],  // unmatched: the fallback
        ]
        let shipped = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("config/curtain.toml"),
            encoding: .utf8
        )
        // One daemon per route, side by side, so that each route's first launch is a cold start.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for route in routes {
                group.addTask {
                    let directory = TestEnvironment.temporaryDirectory("shipped")
                    defer { try? FileManager.default.removeItem(at: directory) }
                    let config = directory.appendingPathComponent("curtain.toml").path
                    try shipped.replacingOccurrences(
                        of: "/usr/bin/curtain-demo-app",
                        with: TestEnvironment.product("curtain-demo-app")
                    )
                    .replacingOccurrences(
                        of: "notify_socket = \"/run/curtain/notify\"",
                        with: "notify_socket = \"\(directory.path)/notify-apps\""
                    )
                    .write(toFile: config, atomically: true, encoding: .utf8)
                    let notify = NotifyListener(directory: directory)
                    let socket = directory.appendingPathComponent("s").path
                    let daemon = try await TestProcess(
                        TestEnvironment.product("curtaind"),
                        ["--config", config, "--socket", socket],
                        environment: ["NOTIFY_SOCKET": notify.path]
                    )
                    #expect(await notify.await { $0.hasPrefix("READY=1") }.matched != nil, "\(daemon.output)")
                    for start in ["cold", "warm"] {
                        let r = try await Self.ctl(socket, ["launch"] + route + ["--follow", "--json", "short"])
                        let events = r.stdout.split(separator: "\n").compactMap {
                            Self.json(String($0)) as? [String: Any]
                        }
                        #expect(r.status == 0 && events.last?["to"] as? String == "revealed", "\(route) \(start): \(r)")
                        // Revealed by its own app, not after the maximum hold by the fallback.
                        #expect(!events.contains { $0["kind"] as? String == "destination" }, "\(route) \(start): \(r)")
                    }
                    daemon.signal(SIGTERM)
                    #expect(await daemon.finish(within: 15).status == 0)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func anUnreachableDaemonIsStatusThreeWithThePathsTried() async throws {
        let r = try await TestProcess.run(CLI.executable, ["ping", "--socket", "/nonexistent/curtain.sock"])
        #expect(r.status == 3)
        #expect(
            r.stderr
                == "curtainctl: no curtaind answers (tried /nonexistent/curtain.sock: No such file or directory); start it with `systemctl start curtaind.socket`, or pass --socket PATH\n"
        )
    }
}
