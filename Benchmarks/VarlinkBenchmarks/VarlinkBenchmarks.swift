import Benchmark
import Foundation
import Varlink
import VarlinkNIO

/// Varlink over a Unix socket, server and client in this process (NIO event loops on both
/// cores): a trivial call's round trip on a held connection, pipelined calls, streamed replies.
let benchInterface = """
    interface org.example.bench
    method Ping() -> ()
    method Stream(n: int) -> (i: int)
    """

struct StreamIn: Codable, Sendable { var n: Int }
struct StreamOut: Codable, Sendable { var i: Int }

/// A server and one held client connection, set up once for all benchmarks.
final class Fixture: Sendable {
    let connection: VarlinkConnection

    init(connection: VarlinkConnection) { self.connection = connection }

    static func start() async throws -> Fixture {
        var bench = InterfaceBuilder(benchInterface)
        bench.rawMethod("Ping") { _, reply in try await reply([:], false) }
        bench.rawMethod("Stream") { request, reply in
            guard case .int(let n)? = request.call.parameters["n"] else { throw VarlinkError.invalidParameter("n") }
            for i in 1...max(n, 1) {
                try await reply(["i": .int(i)], request.call.more && i < n)
                if !request.call.more { return }
            }
        }
        let service = try VarlinkService(
            info: .init(vendor: "Curtain", product: "bench", version: "1", url: ""),
            interfaces: [bench]
        )
        let path = NSTemporaryDirectory() + "varlink-bench-\(getpid()).sock"
        let server = VarlinkServer(service: service, address: .path(path))
        let (listening, listeningContinuation) = AsyncStream<Void>.makeStream()
        Task { try await server.run { listeningContinuation.finish() } }
        for await _ in listening {}
        let (ready, readyContinuation) = AsyncStream<VarlinkConnection>.makeStream()
        // The connection lives as long as the process: its scope never ends.
        Task {
            try await VarlinkConnection.withConnection(to: path) { connection in
                readyContinuation.yield(connection)
                readyContinuation.finish()
                try await Task.sleep(for: .seconds(86_400))
            }
        }
        for await connection in ready { return Fixture(connection: connection) }
        fatalError("no connection")
    }
}

let benchmarks: @Sendable () -> Void = {
    let fixture = FixtureBox()

    Benchmark(
        "varlink round trip (held connection)",
        configuration: .init(
            metrics: [.wallClock, .throughput],
            scalingFactor: .one,
            maxDuration: .seconds(5),
            maxIterations: 100_000,
            setup: { try await fixture.start() }
        )
    ) { benchmark in
        let connection = fixture.get()
        for _ in benchmark.scaledIterations { _ = try await connection.call("org.example.bench.Ping") }
    }

    Benchmark(
        "varlink pipelined calls",
        configuration: .init(
            metrics: [.wallClock, .throughput],
            scalingFactor: .kilo,
            maxDuration: .seconds(5),
            maxIterations: 10_000,
            setup: { try await fixture.start() }
        )
    ) { benchmark in
        let connection = fixture.get()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in benchmark.scaledIterations {
                group.addTask { _ = try await connection.call("org.example.bench.Ping") }
            }
            try await group.waitForAll()
        }
    }

    Benchmark(
        "varlink streamed replies",
        configuration: .init(
            metrics: [.wallClock, .throughput],
            scalingFactor: .kilo,
            maxDuration: .seconds(5),
            maxIterations: 10_000,
            setup: { try await fixture.start() }
        )
    ) { benchmark in
        let connection = fixture.get()
        var count = 0
        for try await _ in connection.callMore(
            "org.example.bench.Stream",
            ["n": .int(Int64(benchmark.scaledIterations.count))]
        ) { count += 1 }
        blackHole(count)
    }
}

/// Starts the fixture on first use (benchmarks run one after another in this process).
final class FixtureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var fixture: Fixture?

    func start() async throws {
        if lock.withLock({ fixture != nil }) { return }
        let started = try await Fixture.start()
        lock.withLock { if fixture == nil { fixture = started } }
    }

    func get() -> VarlinkConnection { lock.withLock { fixture! }.connection }
}
