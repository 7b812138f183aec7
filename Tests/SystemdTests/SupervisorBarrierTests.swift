import CurtainConfig
import CurtainCore
import CurtainTestKit
import Foundation
import Systemd
import Testing

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// An app's BARRIER=1 (systemd-notify --ready) is answered only once the driver has taken the
/// READY=1 before it: the barrier comes to the driver as an event after the app's `ready`, and
/// the app stays blocked while that event is held (issue 18: `revealing` is written before the
/// app wakes).
@Suite struct SupervisorBarrierTests {
    @Test(.timeLimit(.minutes(1))) func theBarrierWaitsForTheDriver() async throws {
        let directory = TestEnvironment.temporaryDirectory("barrier-supervisor")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("app.sh").path
        try """
        #!/bin/sh
        systemd-notify --ready --status=up
        systemd-notify --no-block --status=answered
        exec sleep 600  # ok-sleep: the app stays up until the supervisor stops it
        """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let log = CollectedLog()
        let setup = try OneAppSupervisor(app: "barrier", exec: [script], directory: directory, log: log)
        let supervisor = setup.supervisor
        var events = supervisor.events.makeAsyncIterator()
        let running = Task { await supervisor.run() }
        // A launch id no other suite uses (see SupervisorFloodTests).
        let id = LaunchID(7101)
        await setup.start(id)
        var ready: AppEvent?
        var barrier: NotifyBarrier?
        while barrier == nil, let event = await events.next() {
            switch event {
            case .ready: ready = event
            case .barrier(let launch, let held):
                #expect(launch == id)
                barrier = held
            default: continue
            }
        }
        #expect(ready == .ready(id, .ready, status: "up", elements: [:]))
        let held = try #require(barrier)
        // Held here, where the driver would hold it: the app's shell still waits for
        // systemd-notify (which gives up on a barrier only after 5 s).
        let line = try #require(log.lines.first { $0.hasPrefix("app started") })
        let pid = try #require(line.split(separator: "curtain_app_pid=").last?.prefix { $0.isNumber })
        let children = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
            .split(separator: " ")
        #expect(children.count == 1)
        if let child = children.first {
            let name = try String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)
            #expect(name == "systemd-notify\n")
        }
        held.answer()
        var next = await events.next()
        while case .status(_, "up") = next { next = await events.next() }
        #expect(next == .status(id, "answered"), "\(String(describing: next))")
        await supervisor.stop()
        await running.value
    }
}
