import CurtainCore
import CurtainTestKit
import Foundation
import Synchronization
import Testing
import Varlink
import VarlinkNIO

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Watch's frame fan-out over real sockets: curtaind's Watch replies (`LauncherService.watch`)
/// behind a real `VarlinkServer`, fed by a `Broadcaster` as the driver feeds it. Once a Watch
/// has its socket, the publishing thread writes each observer's replies itself.
@Suite(.serialized) struct FrameFanOutTests {
    /// A server whose Watch is curtaind's, fed by `broadcaster`; `limit` events may wait per observer.
    final class Harness: Sendable {
        let broadcaster = Broadcaster()
        let registry = Registry()
        var mailboxes: [ObserverMailbox] { registry.mailboxes.withLock { $0 } }
        let path: String
        let server: VarlinkServer
        private let task: Mutex<Task<Void, any Error>?> = Mutex(nil)

        init(limit: Int = 64, grace: Double = 30) throws {
            path = TestEnvironment.temporaryDirectory("fanout").appendingPathComponent("s.sock").path
            var builder = InterfaceBuilder(LauncherService<ContinuousClock>.launcherText)
            let (broadcaster, registry) = (self.broadcaster, self.registry)
            builder.rawMethod("Watch", options: .init(requiresMore: true)) { request, reply in
                let subscription = broadcaster.add(.init(launch: nil, frames: true), limit: limit)
                defer { broadcaster.remove(subscription.id) }
                registry.mailboxes.withLock { $0.append(subscription.mailbox) }
                try await LauncherService<ContinuousClock>.watch(
                    subscription.mailbox,
                    only: nil,
                    limit: limit,
                    grace: grace,
                    request: request,
                    reply: reply
                )
            }
            let service = try VarlinkService(
                info: .init(vendor: "Curtain", product: "test", version: "1", url: "https://example.org"),
                interfaces: [builder]
            )
            server = VarlinkServer(service: service, address: .path(path))
        }

        func start() async {
            let (listening, signal) = AsyncStream<Void>.makeStream()
            task.withLock {
                $0 = Task {
                    try await server.run(onListening: {
                        signal.yield()
                        signal.finish()
                    })
                }
            }
            for await _ in listening { break }
        }

        func stop() async {
            let running = task.withLock { $0 }
            running?.cancel()
            _ = await running?.result
        }

        /// `count` observers connected and each one's socket taken over by its Watch.
        func observers(_ count: Int) async throws -> [Peer] {
            let peers = try (0..<count).map { _ in try Peer(path: path) }
            peers.forEach {
                $0.send(#"{"method":"io.curtain.Launcher.Watch","parameters":{"frames":true},"more":true}"# + "\0")
            }
            #expect(await Self.waitUntil { mailboxes.count == count && mailboxes.allSatisfy(\.writesDirectly) })
            return peers
        }

        static func waitUntil(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while !condition() {
                if ContinuousClock.now > deadline { return false }
                try? await Task.sleep(for: .milliseconds(1))  // ok-sleep: the poll interval of a bounded wait
            }
            return true
        }
    }

    final class Registry: Sendable { let mailboxes = Mutex<[ObserverMailbox]>([]) }

    /// What an observer saw of one reply.
    struct Seen: Sendable {
        var kind: String?
        var to: String?
        var frame: Int?
    }

    /// A blocking client socket; every read is bounded by a timeout.
    final class Peer: @unchecked Sendable {
        let fd: Int32
        private var buffer: [UInt8] = []

        init(path: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result != 0 {
                let code = errno
                Glibc.close(fd)
                throw POSIXError(POSIXErrorCode(rawValue: code)!)
            }
        }

        deinit { Glibc.close(fd) }

        func send(_ text: String) {
            _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// Messages already in the socket, without waiting.
        func available() -> [Seen] { read(until: { _ in false }, timeout: 0) }

        /// Messages until one satisfies `last` (included), the peer closes, or `timeout`
        /// seconds pass without data.
        func read(until last: (Seen) -> Bool, timeout: Double = 10) -> [Seen] {
            var out: [Seen] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                while let nul = buffer.firstIndex(of: 0) {
                    let message =
                        (try? JSONSerialization.jsonObject(with: Data(buffer[..<nul])) as? [String: Any]) ?? [:]
                    buffer.removeSubrange(...nul)
                    let event = (message["parameters"] as? [String: Any])?["event"] as? [String: Any] ?? message
                    let seen = Seen(
                        kind: event["kind"] as? String,
                        to: event["to"] as? String,
                        frame: event["frame"] as? Int
                    )
                    out.append(seen)
                    if last(seen) { return out }
                }
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return out }
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return out }
                buffer += chunk[0..<n]
            }
        }

        func readToEnd(timeout: Double = 10) -> [Seen] { read(until: { $0.to == "revealed" }, timeout: timeout) }
    }

    static func state(_ to: LaunchState) -> LaunchEvent {
        .state(LaunchTransition(launch: LaunchID(1), from: nil, to: to, reason: "", time: 0))
    }
    static func frame(_ index: Int) -> LaunchFrame {
        LaunchFrame(
            launch: LaunchID(1),
            index: index,
            time: Double(index) / 120,
            transition: .appear,
            keys: ["splash.opacity"],
            values: [.scalar(Double(index))],
            progress: 0
        )
    }

    static func states(_ events: [Seen]) -> [String] { events.filter { $0.kind == "state" }.compactMap(\.to) }
    static func frames(_ events: [Seen]) -> [Int] { events.filter { $0.kind == "frame" }.compactMap(\.frame) }

    /// The publishing thread writes to an observer that waits: the event is in the socket
    /// when `publish` returns — no task or event loop in between (through the stream task it
    /// arrived later, from another thread).
    @Test(.timeLimit(.minutes(1))) func anIdleObserverIsWrittenByThePublisher() async throws {
        let harness = try Harness()
        await harness.start()
        let peer = try await harness.observers(1)[0]
        harness.broadcaster.publish(Self.state(.presenting))
        harness.broadcaster.publish(Self.frame(1))
        let now = peer.available()
        #expect(Self.states(now) == ["presenting"] && Self.frames(now) == [1])
        await harness.stop()
    }

    /// An observer that stops reading while frames pour out gets, once it reads again, every
    /// state event in order and between two events only the newest frame published before
    /// the second; one reading beside it gets every state event too.
    @Test(.timeLimit(.minutes(1))) func aSlowObserverGetsTheLatestFrameAndEveryEventInOrder() async throws {
        let harness = try Harness()
        await harness.start()
        let peers = try await harness.observers(2)
        let (slow, healthy) = (peers[0], peers[1])
        let healthyRead = Task { await offload { healthy.readToEnd() } }
        let sequence: [LaunchState] = [.presenting, .holding, .revealing]
        var lastBefore: [String: Int] = [:]
        var index = 0
        for state in sequence {
            harness.broadcaster.publish(Self.state(state))
            // Far more than the socket holds: the slow one's socket fills.
            for _ in 0..<1000 {
                index += 1
                harness.broadcaster.publish(Self.frame(index))
            }
            lastBefore[state.rawValue] = index
        }
        harness.broadcaster.publish(Self.state(.revealed))
        let got = await offload { slow.readToEnd() }
        #expect(Self.states(got) == ["presenting", "holding", "revealing", "revealed"])
        let frames = Self.frames(got)
        #expect(frames == frames.sorted() && Set(frames).count == frames.count)
        #expect(frames.count < index / 2, "a stalled observer's frames coalesce: \(frames.count) of \(index)")
        // The frame just before each later event is the newest published before it.
        for (state, next) in zip(sequence, sequence.dropFirst() + [.revealed]) {
            let position = got.firstIndex { $0.to == next.rawValue } ?? 1
            #expect(got[position - 1].frame == lastBefore[state.rawValue], "before \(next)")
        }
        let other = await healthyRead.value
        #expect(Self.states(other) == ["presenting", "holding", "revealing", "revealed"])
        #expect(Self.frames(other) == Self.frames(other).sorted())
        await harness.stop()
    }

    /// An observer that hangs up while its socket is full and replies wait: it is removed, its
    /// connection and the fan-out's copy of its descriptor are closed, and the others go on.
    @Test(.timeLimit(.minutes(1))) func anObserverHangingUpMidWriteIsDropped() async throws {
        let harness = try Harness()
        await harness.start()
        var peers: [Peer]? = try await harness.observers(2)
        let healthy = peers![1]
        let healthyRead = Task { await offload { healthy.readToEnd() } }
        harness.broadcaster.publish(Self.state(.presenting))
        for index in 1...1000 { harness.broadcaster.publish(Self.frame(index)) }
        peers!.remove(at: 0)  // the slow one closes with its socket full
        peers = nil
        harness.broadcaster.publish(Self.state(.holding))
        #expect(await Harness.waitUntil { harness.broadcaster.count == 1 && harness.server.connectionCount == 1 })
        // Gone with it: NIO's descriptor of its connection and the writer's copy. Left: the
        // listener and the healthy observer's two (counted among this server's sockets only:
        // other suites open and close descriptors meanwhile).
        #expect(
            await Harness.waitUntil { Self.serverDescriptors(harness.path) == 3 },
            "this server's descriptors: \(Self.serverDescriptors(harness.path)), not 3"
        )
        for index in 1001...1100 { harness.broadcaster.publish(Self.frame(index)) }
        harness.broadcaster.publish(Self.state(.revealed))
        let other = await healthyRead.value
        #expect(Self.states(other) == ["presenting", "holding", "revealed"])
        await harness.stop()
    }

    /// Many observers at once: each gets every event, frames in order.
    @Test(.timeLimit(.minutes(1))) func manyObserversGetEveryEvent() async throws {
        let harness = try Harness()
        await harness.start()
        let peers = try await harness.observers(100)
        harness.broadcaster.publish(Self.state(.presenting))
        for index in 1...50 { harness.broadcaster.publish(Self.frame(index)) }
        harness.broadcaster.publish(Self.state(.revealed))
        let all = await offload { peers.map { $0.readToEnd() } }
        for got in all {
            #expect(Self.states(got) == ["presenting", "revealed"])
            #expect(Self.frames(got) == Array(1...50))
        }
        await harness.stop()
    }

    /// This process's descriptors of sockets bound to `path` (the listener and its accepted
    /// connections; /proc/net/unix names the path for both), by inode.
    static func serverDescriptors(_ path: String) -> Int {
        guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8) else { return -1 }
        let inodes = Set(
            table.split(separator: "\n").dropFirst().compactMap { line -> Substring? in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count >= 8 && fields[7] == path ? fields[6] : nil
            }
        )
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(target.dropFirst(8).dropLast())
        }.count
    }
}
