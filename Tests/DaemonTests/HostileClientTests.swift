import CurtainTestKit
import Foundation
import Testing
import Varlink
import VarlinkNIO

#if canImport(Glibc)
import Glibc
#endif

/// The real curtaind against calls that crashed it or were answered in the wrong terms: a
/// Watch rate of 1e-300 (Double → Int overflow) gets InvalidParameter and the daemon still
/// answers; the limits themselves pass; io.curtain.App denies in its own terms, to `nobody`.
@Suite(.serialized) struct HostileClientTests {
    static let client = TestEnvironment.repository.appendingPathComponent("Tests/DaemonTests/hostile_client.py").path

    @Test(.timeLimit(.minutes(1))) func tinyWatchRatesAreRefusedAndTheDaemonLives() async throws {
        let (daemon, socket) = try await LauncherIntegrationTests.start()
        try await VarlinkConnection.withConnection(to: socket) { connection in
            let launched = try await connection.call("io.curtain.Launcher.Launch", ["route": ["normal": "shop"]])
            let id = launched["launch"]?["id"] ?? .null
            for fps: JSONValue in [1e-300, 1e-18, 0.0999, 1000.001] {
                await #expect(
                    throws: VarlinkError("org.varlink.service.InvalidParameter", ["parameter": "fps"]),
                    "fps \(fps)"
                ) {
                    try await VarlinkConnection.withConnection(to: socket) { watcher in
                        for try await _ in watcher.callMore("io.curtain.Launcher.Watch", ["frames": true, "fps": fps]) {
                        }
                    }
                }
                #expect(try await connection.call("io.curtain.Launcher.Ping") == [:])
            }
            // At the limits: the snapshot of the launch (named: on a loaded machine the loop
            // above can outlast its maximum hold, and a Watch of all launches then has none).
            for fps: JSONValue in [0.1, 1000] {
                let first: JSONValue? = try await VarlinkConnection.withConnection(to: socket) { watcher in
                    var events = watcher.callMore(
                        "io.curtain.Launcher.Watch",
                        ["launch": id, "frames": true, "fps": fps]
                    ).makeAsyncIterator()
                    return try await events.next()?["event"]?["kind"]
                }
                #expect(first == "state", "fps \(fps)")
            }
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }

    @Test(.timeLimit(.minutes(1))) func asNobody() async throws {
        let python = LauncherIntegrationTests.python
        guard TestEnvironment.isRoot, TestEnvironment.isExecutable(python) else {
            if TestEnvironment.inCI { Issue.record("needs root and the python venv") }
            return
        }
        let (daemon, socket) = try await LauncherIntegrationTests.start()
        let run = try await TestProcess.run(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                python, Self.client, socket,
            ],
            within: 30
        )
        #expect(run.status == 0, "\(run.stderr)")
        let result = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
        func error(_ key: String) -> String? { (result[key] as? [String: Any])?["error"] as? String }
        func parameters(_ key: String) -> [String: String]? {
            (result[key] as? [String: Any])?["parameters"] as? [String: String]
        }
        for key in ["watch 1e-300", "watch 1e-18"] {
            #expect(
                error(key) == "org.varlink.service.InvalidParameter" && parameters(key) == ["parameter": "fps"],
                "\(key): \(result)"
            )
        }
        #expect(result["ping"] as? String == "ok" && result["ping after"] as? String == "ok")
        for (key, method) in [("ready", "Ready"), ("failed", "Failed"), ("attach", "Attach")] {
            #expect(
                error(key) == "io.curtain.App.PermissionDenied" && parameters(key) == ["method": method],
                "\(key): \(result)"
            )
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }
}
