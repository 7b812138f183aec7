import CNotify
import Systemd
import Threads

#if canImport(Glibc)
import Glibc
#endif

/// Every process of an app, found in /proc, and stopping them all.
///
/// Why not the process group: an app's helper may start a session of its own (`setsid`), and
/// a group kill does not reach it. Why not a cgroup: curtaind runs where it cannot create one
/// (a container, a user daemon). So an app's processes are its main process and its
/// descendants by parent pid — and, because curtaind is a child subreaper, the descendants
/// whose parent died, re-parented to curtaind: those are told apart by the
/// CURTAIN_LAUNCH_ID their environment inherited from the app.
enum ProcessTree {
    struct Entry: Sendable, Hashable {
        let pid: pid_t
        let parent: pid_t
        /// Field 22 of /proc/PID/stat, in clock ticks since boot: with the pid, it names one
        /// process (a pid is reused, a pid and its start time are not).
        let startTime: UInt64
        let zombie: Bool
    }

    /// One process's entry, or nil when it is gone.
    static func entry(_ pid: pid_t) -> Entry? {
        guard let bytes = POSIX.readFile("/proc/\(pid)/stat") else { return nil }
        return parse(bytes)
    }

    /// Parses /proc/PID/stat: `pid (comm) state ppid …`; comm may hold spaces and ')', so the
    /// fields are counted from the last ')'. Bytes, not a String: read at every app's start
    /// and exit (as a String, split into substrings, 1.6 % of curtaind's CPU in scenario 6).
    static func parse(_ bytes: [UInt8]) -> Entry? {
        let space = UInt8(ascii: " ")
        let number = { (digits: ArraySlice<UInt8>) in UInt64(String(decoding: digits, as: UTF8.self)) }
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")),
            let close = bytes.lastIndex(of: UInt8(ascii: ")")), open < close,
            let pid = bytes[..<open].split(separator: space).first.flatMap(number).flatMap(pid_t.init(exactly:))
        else { return nil }
        // Field 3 (state) follows ") "; field N is the (N - 3)th after it (the rest is not split).
        let fields = bytes[(close + 1)...].split(maxSplits: 20) { $0 == space || $0 == UInt8(ascii: "\n") }
        guard fields.count >= 20, let parent = number(fields[1]).flatMap(pid_t.init(exactly:)),
            let startTime = number(fields[19])
        else { return nil }
        return Entry(
            pid: pid,
            parent: parent,
            startTime: startTime,
            zombie: fields[0].elementsEqual([UInt8(ascii: "Z")])
        )
    }

    /// Every process now, by pid.
    static func snapshot() -> [pid_t: Entry] {
        var table: [pid_t: Entry] = [:]
        guard let names = POSIX.directoryEntries("/proc") else { return table }
        for name in names {
            guard let pid = pid_t(name), let entry = entry(pid) else { continue }
            table[pid] = entry
        }
        return table
    }

    /// `pid`'s children (of every thread of it), from /proc/PID/task/*/children: a few small
    /// files, where `snapshot` reads one per process on the machine (on a loaded machine that
    /// scan took tens of milliseconds). An empty set when it is gone; nil when the files cannot
    /// be read (a kernel without CONFIG_PROC_CHILDREN): then only `snapshot` can tell.
    static func children(of pid: pid_t) -> Set<pid_t>? {
        guard let tasks = POSIX.directoryEntries("/proc/\(pid)/task") else { return [] }
        var result: Set<pid_t> = []
        for task in tasks {
            // A task gone meanwhile is skipped: the thread has ended.
            if readChildren("/proc/\(pid)/task/\(task)/children", into: &result) == .unsupported { return nil }
        }
        return result
    }

    /// The children of this process's main thread: where the kernel re-parents an orphan when
    /// this process is its child subreaper (to the group's first live thread, and curtaind's
    /// main thread never ends). Apps are spawned from other threads and are not among them, so
    /// an app's exit reads one file here instead of one per thread (issue 18). Nil as for
    /// `children(of:)`.
    static func adopted() -> Set<pid_t>? {
        var result: Set<pid_t> = []
        return readChildren("/proc/self/task/\(getpid())/children", into: &result) == .unsupported ? nil : result
    }

    private enum ChildrenFile { case read, gone, unsupported }

    /// Adds the pids listed in one task's `children` file to `result`.
    private static func readChildren(_ path: String, into result: inout Set<pid_t>) -> ChildrenFile {
        guard let text = POSIX.readFile(path) else {
            // No such file at all (the task is there, its children file is not).
            let task = String(path.dropLast("/children".count))
            return errno == ENOENT && access(task, F_OK) == 0 ? .unsupported : .gone
        }
        for field in text.split(separator: UInt8(ascii: " ")) {
            if let pid = pid_t(String(decoding: field, as: UTF8.self)) { result.insert(pid) }
        }
        return .read
    }

    /// The entries of `roots` and of all their descendants, found through each process's
    /// `children` files: what `snapshot` would say of that subtree, reading a few files per
    /// process in it instead of one per process on the machine (an app's exit looks only at
    /// curtaind's own children, issue 18). Nil when the children files cannot be read.
    static func subtree(of roots: Set<pid_t>) -> [pid_t: Entry]? {
        var table: [pid_t: Entry] = [:]
        var pending = Array(roots)
        while let pid = pending.popLast() {
            guard table[pid] == nil, let entry = entry(pid) else { continue }  // seen, or gone
            table[pid] = entry
            guard let children = children(of: pid) else { return nil }
            pending += children
        }
        return table
    }

    /// `roots` and all their descendants in `table` (roots not in the table are left out).
    static func descendants(of roots: Set<pid_t>, in table: [pid_t: Entry]) -> [Entry] {
        var children: [pid_t: [pid_t]] = [:]
        for entry in table.values { children[entry.parent, default: []].append(entry.pid) }
        var result: [Entry] = []
        var seen: Set<pid_t> = []
        var pending = Array(roots)
        while let pid = pending.popLast() {
            guard seen.insert(pid).inserted, let entry = table[pid] else { continue }
            result.append(entry)
            pending += children[pid] ?? []
        }
        return result
    }

    /// A variable of a process's initial environment (nil when unreadable, as for a zombie).
    static func environment(_ pid: pid_t, _ key: String) -> String? {
        guard let data = POSIX.readFile("/proc/\(pid)/environ") else { return nil }
        let prefix = Array((key + "=").utf8)
        for item in data.split(separator: 0) where item.starts(with: prefix) {
            return String(decoding: item.dropFirst(prefix.count), as: UTF8.self)
        }
        return nil
    }

    /// The processes of launch `launch`'s app: its main process (when `main` is given) and
    /// curtaind's own children carrying the launch's CURTAIN_LAUNCH_ID (orphans re-parented
    /// here), each with every descendant. `exclude` (other apps' main processes) are never roots.
    static func processes(launch: UInt64, main: pid_t?, exclude: Set<pid_t>, in table: [pid_t: Entry]) -> [Entry] {
        let me = getpid()
        var roots: Set<pid_t> = main.map { [$0] } ?? []
        for entry in table.values where entry.parent == me && !exclude.contains(entry.pid) && entry.pid != main {
            if environment(entry.pid, "CURTAIN_LAUNCH_ID") == String(launch) { roots.insert(entry.pid) }
        }
        return descendants(of: roots, in: table)
    }

    /// A process held by a pidfd: signals and reaping reach exactly it, never a successor
    /// that got its pid.
    struct Handle: Sendable {
        let pid: pid_t
        let fd: Int32
        /// Whether curtaind may reap it: a re-parented orphan is; an app's main process is
        /// `ProcessExits`' to reap, never this handle's.
        let reap: Bool

        /// Opens a handle when `entry` is still the same process (its start time matches).
        init?(_ entry: Entry, reap: Bool) {
            let fd = curtain_pidfd_open(entry.pid)
            guard fd >= 0 else { return nil }
            // Checked after opening: the descriptor now pins the process the entry named.
            guard let now = ProcessTree.entry(entry.pid), now.startTime == entry.startTime else {
                close(fd)
                return nil
            }
            (pid, self.fd, self.reap) = (entry.pid, fd, reap)
        }

        func signal(_ number: Int32) { _ = curtain_pidfd_send_signal(fd, number) }
    }

    /// How long `stop` waits after SIGKILL for the processes to be gone (it cannot be ignored;
    /// only a process stuck in the kernel takes longer).
    static let killWait: Duration = .seconds(1)

    /// TERM to every process, KILL to those still there after `grace`, then reaps the
    /// re-parented ones and closes the handles. Waits on the pidfds (readable once a process
    /// has exited), on a thread of its own so no task thread blocks.
    static func stop(_ handles: [Handle], grace: Duration) async {
        guard !handles.isEmpty else { return }
        handles.forEach { $0.signal(SIGTERM) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let work: @Sendable () -> Void = {
                if !waitForExit(handles, within: grace) {
                    handles.forEach { $0.signal(SIGKILL) }
                    _ = waitForExit(handles, within: killWait)
                }
                for handle in handles {
                    if handle.reap { _ = curtain_pidfd_reap(handle.fd) }
                    close(handle.fd)
                }
                done.resume()
            }
            // No thread for it (resources exhausted): waited for here, bounded by grace + killWait.
            if !DetachedThread.start(name: "curtain-stop", work) { work() }
        }
    }

    /// Blocks until every pidfd is readable (its process exited) or `within` has passed.
    static func waitForExit(_ handles: [Handle], within: Duration) -> Bool {
        let deadline = ContinuousClock.now + within
        var pending = handles.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        while !pending.isEmpty {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let ms = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let n = poll(&pending, nfds_t(pending.count), ms)
            if n < 0, errno != EINTR { return false }
            pending = pending.filter { $0.revents == 0 }.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        }
        return true
    }
}
