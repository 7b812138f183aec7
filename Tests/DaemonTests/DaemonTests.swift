import CurtainCore
import CurtainTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// curtaind as systemd runs it: socket-activated by `systemd-socket-activate` (fd named
/// "varlink"), notifying a real NOTIFY_SOCKET, with a watchdog, reloaded by SIGHUP and stopped
/// by SIGTERM. Every wait is on a datagram or a reply, bounded.
@Suite(.serialized) struct DaemonTests {
    static let daemon = TestEnvironment.product("curtaind")
    static let activator = "/usr/bin/systemd-socket-activate"

    @Test func socketActivationReadinessReloadWatchdogAndStop() async throws {
        guard TestEnvironment.isExecutable(Self.activator) else {
            if TestEnvironment.inCI { Issue.record("systemd-socket-activate is missing") }
            return
        }
        let directory = TestEnvironment.temporaryDirectory("curtaind")
        let notify = NotifyListener(directory: directory)
        let socketPath = directory.appendingPathComponent("launcher.sock").path
        let configPath = try TestConfiguration.write(into: directory)

        let process = try await TestProcess(
            Self.activator,
            [
                "-l", socketPath, "--fdname=varlink", "-E", "NOTIFY_SOCKET", "-E", "WATCHDOG_USEC",
                Self.daemon, "--config", configPath,
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "300000"]
        )
        // Wait (bounded) for the activator to say it listens before connecting.
        #expect(await process.waitFor("Listening on", within: 15), "\(process.output)")

        // systemd-socket-activate starts the daemon on the first connection.
        let status = await rawVarlinkCall(socketPath, #"{"method":"io.curtain.Launcher.GetStatus"}"#)
        #expect(status?.contains(#""version":"\#(CurtainVersion.string)""#) == true, "\(status ?? "no reply")")
        let ready = await notify.await { $0.hasPrefix("READY=1") }
        #expect(ready.matched == "READY=1\nSTATUS=idle", "\(ready.seen)")
        #expect(await rawVarlinkCall(socketPath, #"{"method":"io.curtain.Launcher.Ping"}"#) == #"{"parameters":{}}"#)

        // Two watchdog pings: at half of WATCHDOG_USEC while the event loops run.
        var pings = 0
        while pings < 2, let message = await notify.next() { if message == "WATCHDOG=1" { pings += 1 } }
        #expect(pings == 2)

        // SIGHUP with a broken file: RELOADING=1, then READY=1 saying the reload was refused.
        try "[display]\nwidth = \"wide\"\n".write(toFile: configPath, atomically: true, encoding: .utf8)
        process.signal(SIGHUP)
        let reloading = await notify.await { $0.hasPrefix("RELOADING=1") }
        #expect(reloading.matched?.contains("\nMONOTONIC_USEC=") == true)
        let refused = await notify.await { $0.hasPrefix("READY=1") }
        #expect(refused.matched == "READY=1\nSTATUS=idle (reload refused: the configuration has errors)")
        let still = await rawVarlinkCall(socketPath, #"{"method":"io.curtain.Launcher.GetStatus"}"#)
        #expect(still?.contains("2 apps") == true)  // the running configuration stayed

        // STATUS= follows the launches.
        let launched = await rawVarlinkCall(
            socketPath,
            #"{"method":"io.curtain.Launcher.Launch","parameters":{"route":{"normal":"shop"}}}"#
        )
        #expect(launched?.contains(#""decision":"started""#) == true, "\(launched ?? "no reply")")
        let busy = await notify.await { $0.hasPrefix("STATUS=") }
        #expect(busy.matched == "STATUS=1 launch: shop presenting", "\(busy.seen)")

        // SIGTERM: STOPPING=1; the launch in flight is cancelled (STATUS=idle again); a clean exit.
        process.signal(SIGTERM)
        let stopping = await notify.await { $0 == "STOPPING=1" }
        #expect(stopping.matched == "STOPPING=1")
        let drained = await notify.await { $0.hasPrefix("STATUS=") }
        #expect(drained.matched == "STATUS=idle", "\(drained.seen)")
        let finished = await process.finish(within: 15)
        #expect(finished.status == 0, "\(finished.output)")
    }
}
