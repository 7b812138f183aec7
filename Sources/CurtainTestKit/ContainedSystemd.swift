import Foundation
import Synchronization
import UnixSockets

#if canImport(Glibc)
import Glibc
#endif

/// A real systemd (the host's /lib/systemd/systemd) booted as PID 1 of its own namespaces on an
/// overlay of / with a tmpfs upper layer, by tools/contained-systemd: nothing it does reaches
/// the real filesystem, and it is gone after `shutdown()`. Tests drive it as an administrator
/// would — `systemctl`, `systemd-run`, `journalctl` — through `nsenter` into its mount and PID
/// namespaces. Root only; see docs/testing.md.
///
///     let systemd = try await ContainedSystemd.boot(copying: [stage])
///     let (status, out, _) = try await systemd.systemctl("is-active", "dbus.socket")
///     await systemd.shutdown()
///
/// Booting takes about a second (basic.target; units that cannot work in a container are
/// masked by the script). Boot one per suite: `withInstallation` in a suite trait does that.
public final class ContainedSystemd: Sendable {
    /// PID 1 of the container as the host sees it (nsenter's target).
    public let pid1: pid_t
    private let process: TestProcess
    private let ended = Atomic(false)

    /// What a command run in the container printed and how it ended.
    public struct Result: Sendable, CustomStringConvertible {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        public var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
    }

    public enum Failure: Error, CustomStringConvertible {
        case notRoot
        case didNotStart(String)
        case notReady(state: String, output: String)
        public var description: String {
            switch self {
            case .notRoot: return "ContainedSystemd needs root (namespaces, mounts, pivot_root)"
            case .didNotStart(let output): return "tools/contained-systemd did not start systemd:\n\(output)"
            case .notReady(let state, let output): return "systemd did not finish booting (\(state)):\n\(output)"
            }
        }
    }

    /// The bounds of the waits (seconds); generous, as a loaded CI machine is slow.
    public static let bootTimeout = 60.0
    public static let commandTimeout = 60.0
    public static let shutdownTimeout = 20.0

    /// The environment commands run with in the container (nothing of the test's own).
    public static let commandEnvironment = [
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "LANG": "C.UTF-8", "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0", "SYSTEMD_LOG_COLOR": "0",
    ]

    private init(pid1: pid_t, process: TestProcess) {
        self.pid1 = pid1
        self.process = process
    }

    /// Boots systemd and returns once it has finished starting up (it sends READY=1 to the
    /// notify socket handed to it, as it does for a container manager) and reports
    /// "running" or "degraded". `copying` trees are copied into the container's / (a
    /// `make install DESTDIR=` stage, say), `masking` masks more units, `arguments` go to systemd.
    public static func boot(
        copying: [String] = [],
        masking: [String] = [],
        arguments: [String] = [],
        within seconds: Double = bootTimeout
    ) async throws -> ContainedSystemd {
        guard TestEnvironment.isRoot else { throw Failure.notRoot }
        let notify = try AbstractDatagramSocket(name: "curtain-test-systemd-\(getpid())-\(UUID().uuidString.prefix(8))")
        var scriptArguments: [String] = []
        for tree in copying { scriptArguments += ["--copy", tree] }
        for unit in masking { scriptArguments += ["--mask", unit] }
        scriptArguments += ["--"] + arguments
        let script = TestEnvironment.repository.appendingPathComponent("tools/contained-systemd").path
        let process = try await TestProcess(script, scriptArguments, environment: ["NOTIFY_SOCKET": "@" + notify.name])
        let marker = "contained-systemd: pid1 "
        guard await process.waitFor(marker, within: seconds),
            let line = process.output.split(separator: "\n").first(where: { $0.hasPrefix(marker) }),
            let pid = pid_t(line.dropFirst(marker.count))
        else {
            let finished = await process.finish(within: 5)
            throw Failure.didNotStart(finished.output)
        }
        let systemd = ContainedSystemd(pid1: pid, process: process)
        let ready = await notify.receive(within: seconds) { $0.split(separator: "\n").contains("READY=1") }
        let state =
            (try? await systemd.systemctl("is-system-running", "--wait").stdout)?.trimmingCharacters(
                in: .whitespacesAndNewlines
            ) ?? "unknown"
        guard ready, state == "running" || state == "degraded" else {
            let journal =
                (try? await systemd.run(["journalctl", "-b", "--no-pager", "-o", "short-monotonic"]).stdout) ?? ""
            await systemd.shutdown()
            throw Failure.notReady(
                state: ready ? state : "no READY=1 within \(seconds) s",
                output: process.output + journal
            )
        }
        return systemd
    }

    deinit {
        // A test that failed before shutdown(): the namespace's PID 1 takes the rest with it.
        // (Never after it: the number may belong to another process by then.)
        if !ended.load(ordering: .acquiring) { kill(pid1, SIGKILL) }
    }

    /// Runs `command` inside the container (its mount and PID namespaces, a clean environment).
    public func run(_ command: [String], within seconds: Double = commandTimeout) async throws -> Result {
        let (status, stdout, stderr) = try await TestProcess.run(
            "/usr/bin/nsenter",
            ["--target", "\(pid1)", "--mount", "--pid", "--"] + command,
            environment: Self.commandEnvironment,
            inherit: false,
            within: seconds
        )
        return Result(status: status, stdout: stdout, stderr: stderr)
    }

    public func systemctl(_ arguments: String..., within seconds: Double = commandTimeout) async throws -> Result {
        try await run(["systemctl", "--no-pager"] + arguments, within: seconds)
    }

    /// `journalctl --no-pager ARGUMENTS` in the container.
    public func journalctl(_ arguments: String..., within seconds: Double = commandTimeout) async throws -> Result {
        try await run(["journalctl", "--no-pager"] + arguments, within: seconds)
    }

    /// A unit's properties (`systemctl show -p …`), by name.
    public func properties(_ unit: String, _ names: [String]) async throws -> [String: String] {
        let result = try await run(["systemctl", "show", unit, "-p", names.joined(separator: ",")])
        var values: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    /// Writes `text` to `path` inside the container (its overlay: the host never sees it).
    public func write(_ text: String, to path: String, mode: String = "0644") async throws -> Result {
        // The text travels as an argument, never through a shell's parsing.
        try await run([
            "/bin/sh", "-c",
            "umask 022 && mkdir -p \"$(dirname \"$1\")\" && printf '%s' \"$2\" > \"$1\" && chmod \"$3\" \"$1\"",
            "sh", path, text, mode,
        ])
    }

    /// Follows the container's journal from the host (`journalctl --root=/proc/PID/root -f`,
    /// after the current end, `arguments` as filters): `waitFor` on it sees new entries only.
    /// Read from the host on purpose: a process of the container's PID namespace whose parent
    /// is a host process (an `nsenter`) would, once it ended unreaped, hold up the power-off.
    public func followJournal(_ arguments: String...) async throws -> TestProcess {
        let root = "/proc/\(pid1)/root"
        let cursor = try await TestProcess.run(
            "/usr/bin/journalctl",
            ["--root", root, "-n", "0", "--show-cursor", "--no-pager"],
            environment: Self.commandEnvironment,
            inherit: false
        )
        let value = cursor.stdout.split(separator: "\n").compactMap {
            $0.hasPrefix("-- cursor: ") ? $0.dropFirst(11) : nil
        }.last.map(String.init)
        let from = value.map { ["--after-cursor", $0] } ?? ["-n", "0"]
        return try await TestProcess(
            "/usr/bin/journalctl",
            ["--root", root, "--no-pager", "-f"] + from + arguments,
            environment: Self.commandEnvironment,
            inherit: false
        )
    }

    /// Everything the script and systemd printed on the console so far.
    public var output: String { process.output }

    /// `systemctl poweroff`, then waits (bounded) for PID 1 to end; kills it past the bound.
    /// Returns how the container ended: 130 (SIGINT, the kernel's power-off of a PID namespace)
    /// on a clean power-off.
    @discardableResult
    public func shutdown(within seconds: Double = shutdownTimeout) async -> Int32 {
        if ended.load(ordering: .acquiring) { return await process.finish(within: seconds).status }
        _ = try? await systemctl("poweroff", "--no-block", within: seconds)
        let pid1 = self.pid1
        let deadline = Task {
            try? await Task.sleep(for: .seconds(seconds))  // ok-sleep: an upper bound, not synchronisation
            if !Task.isCancelled { kill(pid1, SIGKILL) }
        }
        // The script ends after PID 1 (it removes the container's cgroup last).
        let status = await process.finish(within: seconds + 10).status
        deadline.cancel()
        ended.store(true, ordering: .releasing)
        return status
    }
}

extension ContainedSystemd {
    /// The container of the suite running (set by `withInstallation`).
    @TaskLocal public static var current: ContainedSystemd?

    /// Boots a container holding `make install DESTDIR=… PREFIX=/usr CONFIG=debug` (see
    /// `InstallStage`), sets it up as a package's maintainer scripts would — the curtain user
    /// (systemd-sysusers), /run/curtain (systemd-tmpfiles --create), the catalog
    /// (journalctl --update-catalog), `files` written (drop-ins, configurations), daemon-reload,
    /// curtaind.socket started — and runs `body` with it as `ContainedSystemd.current`. The
    /// container is powered off and the stage removed whatever happens. Meant for a suite
    /// trait's scope, so that a suite boots once (see Tests/SystemdIntegrationTests).
    public static func withInstallation(
        files: [String: String] = [:],
        startSocket: Bool = true,
        _ body: () async throws -> Void
    ) async throws {
        let stage = try await InstallStage.make()
        defer { InstallStage.remove(stage) }
        let systemd = try await boot(copying: [stage.path])
        do {
            var steps: [[String]] = [
                ["systemd-sysusers"], ["systemd-tmpfiles", "--create", "curtain.conf"],
                ["journalctl", "--update-catalog"],
            ]
            for (path, text) in files.sorted(by: { $0.key < $1.key }) {
                try await systemd.write(text, to: path).check("write \(path)")
            }
            steps.append(["systemctl", "daemon-reload"])
            if startSocket { steps.append(["systemctl", "start", "curtaind.socket"]) }
            for step in steps { try await systemd.run(step).check(step.joined(separator: " ")) }
            try await ContainedSystemd.$current.withValue(systemd) { try await body() }
        } catch {
            await systemd.shutdown()
            throw error
        }
        await systemd.shutdown()
    }
}

extension ContainedSystemd.Result {
    public struct Failed: Error, CustomStringConvertible {
        public let what: String
        public let result: ContainedSystemd.Result
        public var description: String { "\(what): \(result)" }
    }

    /// Throws unless the command exited 0.
    public func check(_ what: String) throws {
        if status != 0 { throw Failed(what: what, result: self) }
    }
}

/// A datagram socket in the abstract namespace (@name): it belongs to the network namespace,
/// which the container shares, so systemd inside reaches it whatever its mounts hide.
final class AbstractDatagramSocket: Sendable {
    let name: String
    private let fd: Int32

    init(name: String) throws {
        self.name = name
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if (try UnixSocketAddress("@" + name)).bind(fd) != 0 {
            close(fd)
            throw ContainedSystemd.Failure.didNotStart("cannot bind the notify socket @\(name): errno \(errno)")
        }
    }
    deinit { close(fd) }

    /// Whether a datagram satisfying `predicate` arrives within `seconds` (others are skipped).
    func receive(within seconds: Double, _ predicate: @escaping @Sendable (String) -> Bool) async -> Bool {
        let fd = self.fd
        return await offload {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while true {
                let left = deadline - ContinuousClock.now
                let milliseconds = Int32(
                    max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
                )
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard milliseconds > 0, poll(&poller, 1, milliseconds) > 0 else { return false }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0, predicate(String(decoding: buffer[0..<n], as: UTF8.self)) { return true }
            }
        }
    }
}
