import CNotify
import CurtainTestKit
import Foundation
import Testing

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `ProcessSupervisor.hasExitedChild`: the cheap question that lets `reapOrphans` skip its scan
/// of /proc. It must see an exited, unreaped child, and must leave it unreaped (the child may be
/// swift-subprocess's to reap). Whether it is false with no zombie cannot be asserted here:
/// other suites' children share this process.
@Suite struct ExitedChildTests {
    @Test(.timeLimit(.minutes(1))) func anExitedChildIsSeenAndLeftUnreaped() throws {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&pid, "/bin/true", nil, nil, argv, environ) == 0)
        // Wait for its exit on a pidfd (readable once it has exited), without reaping it.
        let fd = curtain_pidfd_open(pid)
        try #require(fd >= 0)
        defer { close(fd) }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&poller, 1, 10_000) == 1)

        #expect(ProcessSupervisor.hasExitedChild())
        // Still there to be reaped by its owner: WNOWAIT took nothing.
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == pid)
        #expect(status == 0)
    }

    /// `ProcessTree.children`: what `exited` asks before it would scan every process (with no
    /// children but apps' main processes, nothing of an exited app can be left).
    @Test(.timeLimit(.minutes(1))) func childrenListsAChildUntilItIsReaped() throws {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&pid, "/bin/true", nil, nil, argv, environ) == 0)
        #expect(ProcessTree.children(of: getpid())?.contains(pid) == true)  // running, or exited and unreaped
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(ProcessTree.children(of: getpid())?.contains(pid) == false)
    }

    /// `ProcessTree.subtree`: what `exited` reads instead of every process on the machine. A
    /// shell with a background child: both, with their parents, and nothing outside them.
    @Test(.timeLimit(.minutes(1))) func subtreeHoldsAChildAndItsChild() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        var shell: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [
            strdup("/bin/sh"), strdup("-c"), strdup("sleep 30 & echo $!; wait"), nil,
        ]
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&shell, "/bin/sh", &actions, nil, argv, environ) == 0)
        close(ends[1])
        // The grandchild's pid, once the shell has started it (a blocking read, no polling).
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(ends[0], &bytes, bytes.count)
        close(ends[0])
        let sleeper = try #require(
            pid_t(String(decoding: bytes[0..<max(count, 0)], as: UTF8.self).trimmingWhitespace())
        )
        defer {
            kill(sleeper, SIGKILL)
            kill(shell, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(shell, &status, 0)
        }

        let table = try #require(ProcessTree.subtree(of: [shell]))
        #expect(Set(table.keys) == [shell, sleeper])
        #expect(table[shell]?.parent == getpid())
        #expect(table[sleeper]?.parent == shell)
        #expect(table[shell]?.startTime == ProcessTree.entry(shell)?.startTime)
        #expect(ProcessTree.subtree(of: [])?.isEmpty == true)
    }

    /// An app that exits leaving a helper in a session of its own: the helper (now curtaind's
    /// child) is stopped with the app's exit, the skipped scan notwithstanding.
    @Test(.timeLimit(.minutes(1))) func whatAnExitedAppLeftIsStopped() async throws {
        let setup = try RuntimeTests.Setup()
        defer { setup.remove() }
        try setup.addApp("leaver", script: "leaver.sh")
        let daemon = try await setup.start()
        let launched = try await setup.launch("leaver")
        #expect(SupervisorTests.states(launched.events).last == "failed", "\(launched.events)")
        let text = try String(
            contentsOfFile: setup.directory.appendingPathComponent("leaver-\(launched.id).pid").path,
            encoding: .utf8
        )
        let helper = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await SupervisorTests.exits(helper, within: 10), "\(helper) \(daemon.output)")
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }
}
