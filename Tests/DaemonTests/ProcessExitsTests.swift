import CNotify
import CurtainTestKit
import Dispatch
import Synchronization
import Testing

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `ProcessExits` reaps each spawned app as it exits and tells how it ended — by its pidfd on
/// the shared thread, or by pid on a thread of its own where the kernel has no pidfds.
@Suite struct ProcessExitsTests {
    /// Spawns `/bin/sh -c script` as curtaind spawns an app; its pid and pidfd.
    func spawn(_ script: String) throws -> (pid: pid_t, pidfd: Int32) {
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(null) }
        let arguments = try AppCommand.arguments(["/bin/sh", "-c", script]).get()
        let environment = try AppCommand.environment(POSIX.environmentEntries(), overriddenBy: []).get()
        return try AppCommand.spawn("/bin/sh", arguments, environment, directory: nil, output: null).get()
    }

    /// The status `watch` reports for `script`, within ten seconds (nil if none came).
    func exit(of script: String, byPid: Bool) async throws -> ProcessExits.Status? {
        let (pid, pidfd) = try spawn(script)
        if byPid { close(pidfd) }
        let reported = Mutex<ProcessExits.Status?>(nil)
        let done = DispatchSemaphore(value: 0)
        #expect(
            ProcessExits.shared.watch(pid: pid, pidfd: byPid ? -1 : pidfd) { status in
                reported.withLock { $0 = status }
                done.signal()
            }
        )
        guard await offload({ done.wait(timeout: .now() + 10) == .success }) else { return nil }
        return reported.withLock { $0 }
    }

    @Test(arguments: [false, true]) func anExitCodeAndASignalAreTold(byPid: Bool) async throws {
        #expect(try await exit(of: "exit 3", byPid: byPid) == .exited(3))
        #expect(try await exit(of: "exit 0", byPid: byPid).map(\.isSuccess) == true)
        #expect(try await exit(of: "kill -KILL $$", byPid: byPid) == .signaled(SIGKILL))
        #expect(ProcessExits.Status.signaled(SIGKILL).description == "signal 9 (Killed)")
    }
}
