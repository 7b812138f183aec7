import CurtainTestKit
import Foundation
import Testing
import UnixSockets

@testable import Systemd

#if canImport(Glibc)
import Glibc
#endif

/// The notify socket against the real senders: systemd-notify (with its BARRIER=1 and fd),
/// python's systemd.daemon, a burst larger than the kernel's queue, oversized datagrams.
@Suite struct NotifyReceiverTests {
    static let python = "/usr/bin/python3"

    func receiver() throws -> NotifyReceiver {
        try NotifyReceiver(path: TestEnvironment.temporaryDirectory("notify").appendingPathComponent("notify").path)
    }

    func messages(_ receiver: NotifyReceiver, count: Int) async -> [NotifyReceiver.Datagram] {
        var received: [NotifyReceiver.Datagram] = []
        for await datagram in receiver.datagrams {
            received.append(datagram)
            if received.count == count { break }
        }
        return received
    }

    @Test(.timeLimit(.minutes(1))) func systemdNotifyWithItsBarrier() async throws {
        let receiver = try receiver()
        defer { receiver.stop() }
        // It waits until the receiver closes the fd it passed with BARRIER=1: exiting 0 at all
        // proves the barrier was answered.
        let sender = try await TestProcess(
            "/usr/bin/systemd-notify",
            ["--ready", "--status=catalogue loaded"],
            environment: ["NOTIFY_SOCKET": receiver.path]
        )
        let received = await messages(receiver, count: 2)
        let ready = try NotifyMessage(parsing: received[0].bytes)
        #expect(ready.ready && ready.status == "catalogue loaded")
        #expect(received[0].pid > 0 && received[0].uid == getuid())
        let barrier = try NotifyMessage(parsing: received[1].bytes)
        #expect(barrier.barrier && received[1].passedDescriptors == 1)
        #expect(received[0].barrier == nil)
        // Held with its datagram until the consumer answers it.
        received[1].barrier?.answer()
        #expect(await sender.finish(within: 20).status == 0)
    }

    /// A sender passing BARRIER=1 with a pipe's write end, then waiting for the pipe to hang up:
    /// prints "answered N" as each barrier is answered (in the order sent).
    static let barrierSender = """
        import os, select, socket, sys
        count = int(sys.argv[1])
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        waiting = {}
        for i in range(count):
            r, w = os.pipe()
            s.sendmsg([b"BARRIER=1"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, bytes(memoryview(__import__("array").array("i", [w]))))], 0, os.environ["NOTIFY_SOCKET"])
            os.close(w)
            waiting[r] = i
        print("sent", flush=True)
        poller = select.poll()
        for r in waiting: poller.register(r, select.POLLHUP)
        while waiting:
            for r, _ in poller.poll(20000) or sys.exit("timed out"):
                print("answered", waiting.pop(r), flush=True)
                poller.unregister(r)
        """

    /// BARRIER=1's descriptor stays open while its datagram is held, and closes when answered or
    /// when the datagram is let go (a consumer that drops it answers it too).
    @Test(.timeLimit(.minutes(1))) func aBarrierIsAnsweredWhenItsDatagramIsHandled() async throws {
        let receiver = try receiver()
        defer { receiver.stop() }
        let sender = try await TestProcess(
            Self.python,
            ["-c", Self.barrierSender, "2"],
            environment: ["NOTIFY_SOCKET": receiver.path]
        )
        var received = await messages(receiver, count: 2)
        #expect(await sender.waitFor("sent", within: 20))
        #expect(received.allSatisfy { $0.barrier != nil && $0.passedDescriptors == 1 })
        #expect(receiver.barriers.waiting >= 2)
        // Both are held: nothing is answered until the first is.
        #expect(!sender.output.contains("answered"), "\(sender.output)")
        received[0].barrier?.answer()
        #expect(await sender.waitFor("answered 0", within: 20))
        #expect(!sender.output.contains("answered 1"), "\(sender.output)")
        received.removeAll()  // the last reference: answered
        let finished = await sender.finish(within: 20)
        #expect(finished.status == 0 && finished.output == "sent\nanswered 0\nanswered 1\n", "\(finished.output)")
    }

    /// At most `barriers.limit` are held at once: the one past it is answered as it is read.
    /// (A limit of 4 here: 65 from one sender could exceed its backlog of 64 when the consumer
    /// lags, and the one dropped would be answered too.)
    @Test(.timeLimit(.minutes(1))) func barriersPastTheLimitAreAnsweredAtOnce() async throws {
        let receiver = try NotifyReceiver(
            path: TestEnvironment.temporaryDirectory("notify").appendingPathComponent("notify").path,
            barrierLimit: 4
        )
        defer { receiver.stop() }
        let count = receiver.barriers.limit + 1
        let sender = try await TestProcess(
            Self.python,
            ["-c", Self.barrierSender, "\(count)"],
            environment: ["NOTIFY_SOCKET": receiver.path]
        )
        var received = await messages(receiver, count: count)
        #expect(received.filter { $0.barrier != nil }.count == receiver.barriers.limit)
        #expect(received.last?.barrier == nil)
        #expect(await sender.waitFor("answered \(count - 1)", within: 20))
        #expect(!sender.output.contains("answered 0\n"), "\(sender.output)")
        received.removeAll()
        #expect(await sender.finish(within: 20).status == 0)
        #expect(receiver.barriers.waiting == 0)
    }

    /// The calling thread's name (`/proc/thread-self/comm`).
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A consumer that prefers the receiver as its executor takes each datagram on the
    /// receiver's own thread (no pool thread between the read and the consumer); once the
    /// receiver has stopped, the same task goes on on the pool.
    @Test(.timeLimit(.minutes(1))) func aConsumerPreferringTheReceiverRunsOnItsThread() async throws {
        let receiver = try receiver()
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        let address = try UnixSocketAddress(receiver.path)
        let consumer = Task {
            await withTaskExecutorPreference(receiver) {
                () async -> (taken: [String], threads: Set<String>, after: String) in
                var taken: [String] = []
                var threads = Set<String>()
                while let datagram = await receiver.next() {
                    taken.append(String(decoding: datagram.bytes, as: UTF8.self))
                    threads.insert(Self.threadName())
                    if taken.count == 3 { receiver.stop() }
                }
                // Resumed by the thread's last act; everything after runs on the pool.
                await Task.yield()
                return (taken, threads, Self.threadName())
            }
        }
        for text in ["STATUS=one", "STATUS=two", "READY=1"] {
            let sent = address.withSockAddr { sendto(fd, text, text.utf8.count, 0, $0, $1) }
            #expect(sent == text.utf8.count)
        }
        let result = await consumer.value
        #expect(result.taken == ["STATUS=one", "STATUS=two", "READY=1"])
        #expect(result.threads == ["notify-receiver"], "\(result.threads)")
        #expect(result.after != "notify-receiver")
    }

    /// flush answers only once what was sent before it is queued, numbered in order; after
    /// stop it answers at once.
    @Test(.timeLimit(.minutes(1))) func flushTakesWhatWasSentBeforeIt() async throws {
        let receiver = try receiver()
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        let address = try UnixSocketAddress(receiver.path)
        for text in ["STATUS=one", "STATUS=two", "READY=1"] {
            let sent = address.withSockAddr { sendto(fd, text, text.utf8.count, 0, $0, $1) }
            #expect(sent == text.utf8.count)
        }
        #expect(await receiver.flush() == 3)
        var iterator = receiver.datagrams.makeAsyncIterator()
        var sequences: [UInt64] = []
        for _ in 0..<3 { if let datagram = await iterator.next() { sequences.append(datagram.sequence) } }
        #expect(sequences == [1, 2, 3])
        receiver.stop()
        #expect(await receiver.flush() == 0)
    }

    /// Asked without a flush, the receiver answers only for what it has queued: every answer
    /// covers each datagram whose send returned before the question, however it races the
    /// thread taking them (500 sends, each followed by the question); once all are read it
    /// answers their number; after stop, nil (then `flush` answers).
    @Test(.timeLimit(.minutes(1))) func askedWithoutAFlushItAnswersOnlyForWhatItQueued() async throws {
        let receiver = try receiver()
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        let address = try UnixSocketAddress(receiver.path)
        var answered = 0
        for sent in 1...500 {
            let text = "STATUS=\(sent)"
            #expect(address.withSockAddr { sendto(fd, text, text.utf8.count, 0, $0, $1) } == text.utf8.count)
            if let through = receiver.readThroughIfIdle() {
                answered += 1
                #expect(through >= UInt64(sent), "answered \(through) after \(sent) sends")
            }
        }
        #expect(await receiver.flush() == 500)
        #expect(receiver.readThroughIfIdle() == 500)
        receiver.stop()
        #expect(receiver.readThroughIfIdle() == nil)
        print("answered without a flush: \(answered) of 500")
    }

    /// A flush racing `stop` is answered: it neither waits for a thread that has ended nor
    /// writes to the wake pipe `stop` closed (200 races, each against a fresh receiver).
    @Test(.timeLimit(.minutes(1))) func aFlushRacingStopIsAnswered() async throws {
        for _ in 0..<200 {
            let receiver = try receiver()
            async let flushed = receiver.flush()
            receiver.stop()
            _ = await flushed
        }
    }

    @Test(.timeLimit(.minutes(1))) func pythonSystemdDaemonAndABurstBeyondTheQueue() async throws {
        guard TestEnvironment.isExecutable(Self.python) else { return }
        let receiver = try receiver()
        defer { receiver.stop() }
        // net.unix.max_dgram_qlen is 10 here: 20 in a row only all arrive if we keep draining.
        let script = """
            from systemd import daemon
            for i in range(19):
                assert daemon.notify(f"STATUS=step {i}")
            assert daemon.notify("READY=1\\nX_CURTAIN_STAGE=content")
            print("sent", flush=True)
            """
        let sender = try await TestProcess(Self.python, ["-c", script], environment: ["NOTIFY_SOCKET": receiver.path])
        let received = await messages(receiver, count: 20)
        let finished = await sender.finish(within: 20)
        #expect(finished.status == 0 && finished.output == "sent\n", "\(finished.output)")
        #expect(received.count == 20)
        #expect(try NotifyMessage(parsing: received[7].bytes).status == "step 7")
        let last = try NotifyMessage(parsing: received[19].bytes)
        #expect(last.ready && last.fields["X_CURTAIN_STAGE"] == "content")
        #expect(Set(received.map(\.pid)) == [sender.pid])  // the kernel's word, not the sender's
    }

    @Test(.timeLimit(.minutes(1))) func oversizedDatagramsAreMarked() async throws {
        let receiver = try receiver()
        defer { receiver.stop() }
        let script = """
            import socket, os
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.sendto(b"STATUS=" + b"x" * 5000, os.environ["NOTIFY_SOCKET"])
            s.sendto(b"READY=1", os.environ["NOTIFY_SOCKET"])
            """
        _ = try await TestProcess.run(Self.python, ["-c", script], environment: ["NOTIFY_SOCKET": receiver.path])
        let received = await messages(receiver, count: 2)
        #expect(received[0].truncated)
        #expect(throws: NotifyMessage.ParseError.tooLong(4097)) { try NotifyMessage(parsing: received[0].bytes) }
        #expect(!received[1].truncated)
    }
}

@Suite struct NotifyMessageTests {
    @Test func systemdsKeysTypedOthersKeptRaw() throws {
        let m = try NotifyMessage(
            parsing: Array(
                "READY=1\nSTATUS=a=b\nERRNO=2\nEXTEND_TIMEOUT_USEC=5000000\nX_CURTAIN_STAGE=skeleton\nX_CURTAIN_ELEMENTS={\"logo\":{}}\nMAINPID=7\nSTOPPING=1"
                    .utf8
            )
        )
        #expect(m.ready && m.stopping && m.status == "a=b" && m.errno == 2 && m.extendTimeoutMicroseconds == 5_000_000)
        #expect(m.fields == ["X_CURTAIN_STAGE": "skeleton", "X_CURTAIN_ELEMENTS": #"{"logo":{}}"#, "MAINPID": "7"])
    }

    /// Only a message of nothing but STATUS may be dropped under a flood: any other key,
    /// known to systemd or not, may be a state its receiver must not miss.
    @Test func changesState() throws {
        func changes(_ text: String) throws -> Bool { try NotifyMessage(parsing: Array(text.utf8)).changesState }
        #expect(try !changes("STATUS=a\nSTATUS=b"))
        #expect(try changes("READY=1") && changes("ERRNO=3") && changes("EXTEND_TIMEOUT_USEC=1"))
        #expect(try changes("STATUS=a\nX_CURTAIN_STAGE=content") && changes("X_ANY=1"))
    }

    @Test func malformedMessagesAreRejectedPrecisely() {
        #expect(throws: NotifyMessage.ParseError.empty) { try NotifyMessage(parsing: Array("\n\n".utf8)) }
        #expect(throws: NotifyMessage.ParseError.notAnAssignment("READY")) {
            try NotifyMessage(parsing: Array("READY".utf8))
        }
        #expect(throws: NotifyMessage.ParseError.badValue(key: "READY", value: "yes")) {
            try NotifyMessage(parsing: Array("READY=yes".utf8))
        }
        #expect(throws: NotifyMessage.ParseError.badValue(key: "EXTEND_TIMEOUT_USEC", value: "-1")) {
            try NotifyMessage(parsing: Array("EXTEND_TIMEOUT_USEC=-1".utf8))
        }
        #expect(throws: NotifyMessage.ParseError.notUTF8) { try NotifyMessage(parsing: [0x53, 0x3d, 0xff]) }
        #expect(throws: NotifyMessage.ParseError.tooLong(4097)) {
            try NotifyMessage(parsing: [UInt8](repeating: 0x41, count: 4097))
        }
        #expect(throws: Never.self) {
            try NotifyMessage(parsing: Array(("STATUS=" + String(repeating: "x", count: 4089)).utf8))
        }
    }
}
