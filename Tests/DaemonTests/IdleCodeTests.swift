import CurtainTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An idle curtaind gives back the clean code and read-only pages it touched (Sources/curtaind,
/// IdleCode) once idle for IdleCode.delay (3 s): after start-up, and after a launch. Measured on
/// curtaind's own binary, beside the same binary with `CURTAIN_IDLE_CODE=keep`; the release is
/// waited for by polling /proc/PID/smaps, bounded.
@Suite(.serialized) struct IdleCodeTests {
    static let curtaind = TestEnvironment.product("curtaind")

    /// KiB resident in `binary`'s non-writable mappings of process `pid` (/proc/PID/smaps).
    static func codeResident(_ pid: pid_t, _ binary: String) throws -> Int {
        let smaps = try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8)
        var counting = false
        var total = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.first?.hasSuffix(":") == false {
                counting = fields.count >= 6 && !fields[1].contains("w") && fields[5] == binary
            } else if counting, fields.first == "Rss:", fields.count > 1, let kib = Int(fields[1]) {
                total += kib
            }
        }
        return total
    }

    /// A curtaind started on a private socket, ready (READY=1 received).
    struct Running {
        let process: TestProcess
        let socket: String
        let notify: NotifyListener
        let directory: URL
    }

    static func start(keep: Bool) async throws -> Running {
        let directory = TestEnvironment.temporaryDirectory("curtaind-idle-code")
        let notify = NotifyListener(directory: directory)
        let socket = directory.appendingPathComponent("launcher.sock").path
        let config = try TestConfiguration.write(into: directory)
        let process = try await TestProcess(
            Self.curtaind,
            ["--config", config, "--socket", socket],
            environment: ["NOTIFY_SOCKET": notify.path, "CURTAIN_IDLE_CODE": keep ? "keep" : "release"]
        )
        let ready = await notify.await { $0.hasPrefix("READY=1") }
        #expect(ready.matched != nil, "\(ready.seen) \(process.output)")
        #expect(await rawVarlinkCall(socket, #"{"method":"io.curtain.Launcher.Ping"}"#) == #"{"parameters":{}}"#)
        return Running(process: process, socket: socket, notify: notify, directory: directory)
    }

    static func stop(_ running: Running) async {
        running.process.signal(SIGTERM)
        let finished = await running.process.finish(within: 15)
        #expect(finished.status == 0, "\(finished.output)")
        try? FileManager.default.removeItem(at: running.directory)
    }

    /// Polls (bounded) until curtaind's resident code is below half of `reference` KiB; returns
    /// the last value seen.
    static func waitForRelease(_ running: Running, below reference: Int) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(15)
        var kib = try Self.codeResident(running.process.pid, Self.curtaind)
        while kib * 2 >= reference, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))  // polling smaps, bounded by the deadline
            kib = try Self.codeResident(running.process.pid, Self.curtaind)
        }
        return kib
    }

    /// Idle after start-up, curtaind keeps less than half of what the same binary keeps with the
    /// pages kept (start-up's conformance scans and fault-around map most of its text).
    @Test func startUpCodeIsReleasedOnceIdle() async throws {
        let kept = try await Self.start(keep: true)
        let keptKiB = try Self.codeResident(kept.process.pid, Self.curtaind)
        await Self.stop(kept)
        #expect(keptKiB > 1024, "the check sees curtaind's text: \(keptKiB) KiB")
        let running = try await Self.start(keep: false)
        let releasedKiB = try await Self.waitForRelease(running, below: keptKiB)
        await Self.stop(running)
        #expect(releasedKiB * 2 < keptKiB, "resident code: \(releasedKiB) KiB released, \(keptKiB) KiB kept")
    }

    /// A launch maps code again; once no launch is in flight (STATUS=idle) it goes again.
    @Test func codeALaunchTouchedIsReleasedOnceIdle() async throws {
        let running = try await Self.start(keep: false)
        let launched = await rawVarlinkCall(
            running.socket,
            #"{"method":"io.curtain.Launcher.Launch","parameters":{"route":{"normal":"shop"}}}"#
        )
        #expect(launched?.contains(#""decision":"started""#) == true, "\(launched ?? "no reply")")
        let id = launched.flatMap { $0.firstMatch(of: /"id":(\d+)/).map { String($0.1) } } ?? "1"
        _ = await rawVarlinkCall(
            running.socket,
            #"{"method":"io.curtain.Launcher.Control","parameters":{"id":\#(id),"action":"cancel"}}"#
        )
        let idle = await running.notify.await { $0 == "STATUS=idle" }
        #expect(idle.matched != nil, "\(idle.seen)")
        let busyKiB = try Self.codeResident(running.process.pid, Self.curtaind)
        let idleKiB = try await Self.waitForRelease(running, below: busyKiB)
        await Self.stop(running)
        #expect(idleKiB * 2 < busyKiB, "resident code after the launch: \(busyKiB) KiB, idle: \(idleKiB) KiB")
    }
}
