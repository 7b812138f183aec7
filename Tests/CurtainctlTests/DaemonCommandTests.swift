#if canImport(Glibc)
import Glibc
#endif
import CurtainTestKit
import Foundation
import Testing

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
        let process = try await TestProcess(TestEnvironment.product("curtaind"), ["--config", config, "--socket", socket],
                                            environment: ["NOTIFY_SOCKET": notify.path])
        #expect(await notify.await { $0.hasPrefix("READY=1") }.matched != nil, "\(process.output)")
        return (process, socket)
    }

    static func ctl(_ socket: String, _ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await TestProcess.run(CLI.executable, arguments, environment: ["CURTAIN_SOCKET": socket])
    }

    func json(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test(.timeLimit(.minutes(1))) func everyCommandAgainstARealDaemon() async throws {
        let (daemon, socket) = try await Self.daemon()

        let ping = try await Self.ctl(socket, "ping", "--json", "short")
        #expect(ping.status == 0 && (json(ping.stdout) as? [String: Any])?["socket"] as? String == socket, "\(ping)")

        let fast = try await Self.ctl(socket, "ping", "--socket", socket)   // the fast path, without ArgumentParser
        #expect(fast.status == 0 && fast.stdout.hasPrefix("pong from \(socket) in "), "\(fast)")

        let infoJSON = try await Self.ctl(socket, "info", "--json", "short")
        #expect((json(infoJSON.stdout) as? [String: Any])?["product"] as? String == "curtaind", "\(infoJSON)")
        let reload = try await Self.ctl(socket, "reload")
        #expect(reload.status == 0 && reload.stdout.hasPrefix("reloaded: 1 app, 1 deep-link rule"), "\(reload)")
        let statistics = try await Self.ctl(socket, "status", "--json", "short")
        #expect(((json(statistics.stdout) as? [String: Any])?["statistics"] as? [String: Any])?["requested"] as? Int == 0)

        let info = try await Self.ctl(socket, "info")
        #expect(info.stdout.contains("Interfaces: io.curtain.App, io.curtain.Launcher, org.varlink.service"), "\(info.stdout)")

        let launched = try await Self.ctl(socket, "launch", "--deeplink", "shop://product/42")
        #expect(launched.status == 0 && launched.stdout == "launch 1 started: shop/product (presenting)\n", "\(launched)")

        let list = try await Self.ctl(socket, "list", "--json", "short")
        let launches = json(list.stdout) as? [[String: Any]]
        #expect(launches?.count == 1 && launches?.first?["id"] as? Int == 1)
        let table = try await Self.ctl(socket, "list", "--no-legend")
        #expect(table.stdout.hasPrefix("1  ") && !table.stdout.contains("STATE"), "\(table.stdout)")

        let status = try await Self.ctl(socket, "status", "1", "--json", "pretty")
        #expect((json(status.stdout) as? [String: Any])?["state"] != nil && status.stdout.contains("\n  \""))

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
        for _ in 0..<200 where !cancelled {   // bounded: the launch exists once `status 2` answers
            cancelled = try await Self.ctl(socket, "control", "2", "cancel").status == 0
        }
        let follow = try await followed
        #expect(follow.status == 1, "\(follow)")

        let refused = try await Self.ctl(socket, "control", "1", "pause")
        #expect(refused.status == 1 && refused.stderr.hasPrefix("curtainctl: io.curtain.Launcher.InvalidControl"), "\(refused)")
        let usage = try await Self.ctl(socket, "launch", "--normal", "a", "--deeplink", "b")
        #expect(usage.status == 2)

        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }

    @Test func anUnreachableDaemonIsStatusThreeWithThePathsTried() async throws {
        let r = try await TestProcess.run(CLI.executable, ["ping", "--socket", "/nonexistent/curtain.sock"])
        #expect(r.status == 3)
        #expect(r.stderr == "curtainctl: no curtaind answers (tried /nonexistent/curtain.sock: No such file or directory); start it with `systemctl start curtaind.socket`, or pass --socket PATH\n")
    }
}
