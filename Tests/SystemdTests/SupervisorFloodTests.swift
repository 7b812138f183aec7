import CurtainConfig
import CurtainCore
import CurtainTestKit
import Foundation
import Testing

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The supervisor's side of a flood: every notify message from outside every app is rejected,
/// but the log says so about once a second per sender, not once per message.
@Suite struct SupervisorFloodTests {
    /// An app starts a process in a session of its own (`setsid -w`, so outside the app) that
    /// sends 10 000 READY=1 and exits; the app exits with it. Its exit is taken only after
    /// every message sent before it was handled (`catchUp`), so every message that reached the
    /// supervisor is rejected (at once, or when its hold expires) — in a bounded number of lines.
    @Test(.timeLimit(.minutes(1))) func tenThousandRejectedMessagesMakeABoundedNumberOfLines() async throws {
        let python = "/usr/bin/python3"
        guard TestEnvironment.isExecutable(python) else { return }
        let directory = TestEnvironment.temporaryDirectory("flood-supervisor")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("flood.py").path
        try """
        import os, socket
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        for i in range(10000):
            s.sendto(b"READY=1", os.environ["NOTIFY_SOCKET"])
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let log = CollectedLog()
        let setup = try OneAppSupervisor(
            app: "flood",
            exec: ["/usr/bin/setsid", "-w", python, script],
            directory: directory,
            log: log
        )
        let supervisor = setup.supervisor
        let failures = supervisor.events.compactMap { event -> String? in
            if case .failed(_, let reason) = event { reason } else { nil }
        }
        let running = Task { await supervisor.run() }
        let started = ContinuousClock.now
        // A launch id no other suite uses: a supervisor takes its launch's leftovers among this
        // process's children by CURTAIN_LAUNCH_ID, and ShutdownOrderTests' supervisor (launch 1,
        // the same test process) took this app for one of its own and reaped it.
        await setup.start(LaunchID(7001))
        var reasons = failures.makeAsyncIterator()
        let reason = await reasons.next()
        #expect(reason?.contains("before it was ready") == true, "\(reason ?? "")")
        // Past the 64 held, a message is rejected at once; the held ones when their window has
        // passed. Under load the receiver's backlog drops part of the flood first, and what got
        // through may all be held when the app exits: wait (bounded) for the window.
        #expect(await log.wait(within: 10) { $0.contains { $0.contains("outside every app rejected") } })
        let seconds = Int((ContinuousClock.now - started).components.seconds)
        let rejected = log.lines.filter { $0.contains("outside every app rejected") }
        #expect(!rejected.isEmpty)
        // One line per second from this sender (the first 64 wait 2 s for their app and are
        // rejected after this), however many messages it sends.
        #expect(rejected.count <= seconds + 2, "\(rejected.count) lines in \(seconds) s")
        await supervisor.stop()
        await running.value
    }
}
