import CurtainTestKit
import Foundation
import Logging
import Synchronization
import Testing

@testable import Systemd

#if canImport(Glibc)
import Glibc
#endif

/// Log lines collected in memory, with a bounded wait for one to appear.
final class CollectedLog: Sendable {
    private struct State {
        var lines: [String] = []
        var waiters:
            [(id: Int, predicate: @Sendable ([String]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    var lines: [String] { state.withLock { $0.lines } }

    var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    func append(_ line: String) {
        let due = state.withLock { state in
            state.lines.append(line)
            let lines = state.lines
            let due = state.waiters.filter { $0.predicate(lines) }
            state.waiters.removeAll { $0.predicate(lines) }
            return due.map(\.continuation)
        }
        due.forEach { $0.resume(returning: true) }
    }

    /// Whether the lines satisfy `predicate` within `seconds`.
    func wait(within seconds: Double, until predicate: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timeout = Task {
            try? await Task.sleep(for: .seconds(seconds))  // ok-sleep: an upper bound, not synchronisation
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume(returning: false)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if predicate(state.lines) { return true }
                state.waiters.append((id, predicate, continuation))
                return false
            }
            if now { continuation.resume(returning: true) }
        }
    }

    struct Handler: LogHandler {
        let log: CollectedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        var metadataProvider: Logger.MetadataProvider?
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: " "
            )
            log.append("\(event.message) [\(fields)]")
        }
    }
}

/// A flood of notify datagrams, from other processes and from an app itself, against the
/// real receiver with its consumer held back, so its backlog really fills.
@Suite struct NotifyFloodTests {
    static let python = "/usr/bin/python3"

    /// `argv[1]` processes, each sending STATUS= as fast as it can until SIGUSR1 reaches the
    /// parent (or the parent is gone or the socket closes); "flooding" once each has sent 300.
    static let floodFromMany = """
        import os, signal, socket, sys
        path, n, parent = os.environ["NOTIFY_SOCKET"], int(sys.argv[1]), os.getpid()
        r, w = os.pipe()
        children = []
        for k in range(n):
            pid = os.fork()
            if pid == 0:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                i = 0
                try:
                    while True:
                        s.sendto(b"STATUS=flood %d" % i, path)
                        i += 1
                        if i == 300:
                            os.write(w, b"x")
                        if i % 100 == 0 and os.getppid() != parent:
                            break
                except OSError:
                    pass
                os._exit(0)
            children.append(pid)
        def stop(*_):
            for c in children:
                os.kill(c, signal.SIGTERM)
            for c in children:
                os.waitpid(c, 0)
            print("stopped", flush=True)
            os._exit(0)
        signal.signal(signal.SIGUSR1, stop)
        got = 0
        while got < n:
            got += len(os.read(r, n))
        print("flooding", flush=True)
        while True:
            signal.pause()
        """

    func receiver(_ log: CollectedLog) throws -> NotifyReceiver {
        try NotifyReceiver(
            path: TestEnvironment.temporaryDirectory("flood").appendingPathComponent("notify").path,
            logger: log.logger
        )
    }

    /// Drops a log reports: one per "dropped" line, plus every "suppressed N messages" count.
    static func accounted(_ lines: [String]) -> Int {
        lines.reduce(0) { total, line in
            let own = line.hasPrefix("notify message dropped") ? 1 : 0
            guard let range = line.range(of: "suppressed ") else { return total + own }
            return total + own + (Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
    }

    static func remove(_ receiver: NotifyReceiver) {
        try? FileManager.default.removeItem(atPath: (receiver.path as NSString).deletingLastPathComponent)
    }

    static func isReady(_ datagram: NotifyReceiver.Datagram) -> Bool {
        (try? NotifyMessage(parsing: datagram.bytes))?.ready ?? false
    }

    /// 20 processes flood the socket (20 × 64 > the 1024 the backlog holds) while nobody takes
    /// from it; a well-behaved app's READY=1 (real systemd-notify) still gets
    /// in, and once the consumer takes again it is served within one round of the senders —
    /// while the flood goes on. flush answers while the socket is refilled as fast as it is read.
    @Test(.timeLimit(.minutes(1))) func anotherSendersFloodCostsAnAppNothing() async throws {
        guard TestEnvironment.isExecutable(Self.python) else { return }
        let log = CollectedLog()
        let receiver = try receiver(log)
        defer {
            receiver.stop()
            Self.remove(receiver)
        }
        let senders = 20
        let flooder = try await TestProcess(
            Self.python,
            ["-c", Self.floodFromMany, "\(senders)"],
            environment: ["NOTIFY_SOCKET": receiver.path]
        )
        #expect(await flooder.waitFor("flooding", within: 20), "\(flooder.output)")
        // The backlog is full: the flood has started losing datagrams.
        #expect(await log.wait(within: 20) { $0.contains { $0.hasPrefix("notify message dropped: too many waiting") } })
        // Without its barrier: a barrier is answered only once the consumer has taken it.
        let app = try await TestProcess(
            "/usr/bin/systemd-notify",
            ["--no-block", "--ready", "--status=app ready"],
            environment: ["NOTIFY_SOCKET": receiver.path]
        )
        #expect(await app.finish(within: 20).status == 0)  // sent
        #expect(await receiver.flush() > 0)  // and read
        #expect(!flooder.output.contains("stopped"))
        // The gate opens: the consumer takes again, the flood still running.
        var taken: [NotifyReceiver.Datagram] = []
        for await datagram in receiver.datagrams {
            taken.append(datagram)
            if Self.isReady(datagram) || taken.count == 5000 { break }
        }
        flooder.signal(SIGUSR1)
        #expect(await flooder.finish(within: 20).output.contains("stopped"))
        let ready = try #require(taken.lastIndex(where: Self.isReady), "READY=1 lost in the flood")
        #expect(ready <= senders, "served only after \(ready) others")
        #expect(try NotifyMessage(parsing: taken[ready].bytes).status == "app ready")
        #expect(zip(taken, taken.dropFirst()).allSatisfy { $0.sequence <= $1.sequence })
    }

    /// An app floods its own socket with 10 000 STATUS= and then sends READY=1, with nobody
    /// taking: what waits for it is its 64 latest, READY=1 last; the 9 937 it lost make a
    /// bounded number of log lines, and the summary accounts for every one.
    @Test(.timeLimit(.minutes(1))) func anAppFloodingItselfKeepsItsReadyAndTheLogStaysShort() async throws {
        guard TestEnvironment.isExecutable(Self.python) else { return }
        let log = CollectedLog()
        let receiver = try receiver(log)
        defer {
            receiver.stop()
            Self.remove(receiver)
        }
        let script = """
            import os, socket
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            path = os.environ["NOTIFY_SOCKET"]
            for i in range(10000):
                s.sendto(b"STATUS=step %d" % i, path)
            s.sendto(b"READY=1\\nX_CURTAIN_STAGE=content", path)
            print("sent", flush=True)
            """
        let started = ContinuousClock.now
        let sender = try await TestProcess(Self.python, ["-c", script], environment: ["NOTIFY_SOCKET": receiver.path])
        let finished = await sender.finish(within: 30)
        #expect(finished.status == 0 && finished.output == "sent\n", "\(finished.output)")
        #expect(await receiver.flush() == 10_001)

        // Every drop is either a line of its own or counted in a later one, within the bound:
        // one line per second from this sender, and the summary.
        let drops = 10_001 - NotifyReceiver.backlogPerSender
        let accounted = await log.wait(within: 10) { Self.accounted($0) >= drops }
        let seconds = Int((ContinuousClock.now - started).components.seconds)
        let lines = log.lines
        #expect(accounted && Self.accounted(lines) == drops, "\(lines)")
        #expect(lines.count <= seconds + 2, "\(lines)")
        #expect(lines.allSatisfy { $0.contains("curtain_sender_pid=\(sender.pid)") })

        receiver.stop()
        var taken: [NotifyReceiver.Datagram] = []
        for await datagram in receiver.datagrams { taken.append(datagram) }
        #expect(taken.count == NotifyReceiver.backlogPerSender)
        let last = try NotifyMessage(parsing: try #require(taken.last).bytes)
        #expect(last.ready && last.fields["X_CURTAIN_STAGE"] == "content")
        #expect(try NotifyMessage(parsing: taken[taken.count - 2].bytes).status == "step 9999")
        #expect(taken.last?.sequence == 10_001)
    }
}
