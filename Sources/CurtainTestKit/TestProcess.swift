import Subprocess
import Synchronization
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A child process under test, started with swift-subprocess: its standard output and error
/// are collected together as they arrive, a test can wait (bounded) for a line to appear, send
/// it signals, and wait (bounded) for it to end. Every wait suspends; none blocks a thread of
/// the concurrency pool (Foundation's `Process` did, and a run of parallel tests could stall).
/// A process still running when its last reference goes is killed, so a failed test leaves
/// nothing behind.
public final class TestProcess: Sendable {
    /// How a process ended: its exit code, or 128 + the signal, as a shell reports it.
    public struct Finished: Sendable {
        public let status: Int32
        public let output: String
    }

    public let pid: pid_t
    private let log: OutputLog
    private let exit: Task<Int32, Never>
    private let ended: Flag

    /// Starts `executable` (an absolute path). `environment` is added to this process's own
    /// unless `inherit` is false.
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        inherit: Bool = true
    ) async throws {
        let log = OutputLog()
        let ended = Flag()
        let (started, announce) = AsyncStream.makeStream(of: Result<pid_t, any Error>.self)
        let exit = Task<Int32, Never> {
            do {
                let result = try await Subprocess.run(
                    .path(FilePath(executable)),
                    arguments: Arguments(arguments),
                    environment: Self.makeEnvironment(environment, inherit: inherit),
                    input: .none,
                    output: .sequence,
                    error: .combinedWithOutput
                ) { execution in
                    announce.yield(.success(execution.processIdentifier.value))
                    announce.finish()
                    for try await buffer in execution.standardOutput {
                        log.append(buffer.withUnsafeBytes { Array($0) })
                    }
                }
                log.close()
                ended.value.store(true, ordering: .releasing)
                return Self.code(result.terminationStatus)
            } catch {
                announce.yield(.failure(error))
                announce.finish()
                log.close()
                return -1
            }
        }
        var iterator = started.makeAsyncIterator()
        guard let first = await iterator.next() else { throw TestKitError.notStarted(executable) }
        self.pid = try first.get()
        self.log = log
        self.exit = exit
        self.ended = ended
    }

    deinit {
        if !ended.value.load(ordering: .acquiring) { kill(pid, SIGKILL) }
    }

    /// Everything the process wrote so far (standard output and error, interleaved).
    public var output: String { log.text }

    /// Whether `marker` appears in the output within `seconds` (false at once if the output ended without it).
    public func waitFor(_ marker: String, within seconds: Double) async -> Bool {
        await log.wait(for: marker, within: seconds)
    }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the process to end; after `seconds` it is killed, so a hung child cannot hang the suite.
    public func finish(within seconds: Double) async -> Finished {
        let pid = self.pid
        let deadline = Task {
            try? await Task.sleep(for: .seconds(seconds))  // ok-sleep: an upper bound, not synchronisation
            if !Task.isCancelled { kill(pid, SIGKILL) }
        }
        let status = await exit.value
        deadline.cancel()
        return Finished(status: status, output: log.text)
    }

    /// Terminates the process and waits (bounded) until it is gone.
    public func stop() async {
        signal(SIGTERM)
        _ = await finish(within: 10)
    }

    /// Runs a process to completion with its two streams apart, for command-line tests.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        inherit: Bool = true,
        within seconds: Double = 60
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let limit = 16 << 20
        let work = Task {
            try await Subprocess.run(
                .path(FilePath(executable)),
                arguments: Arguments(arguments),
                environment: Self.makeEnvironment(environment, inherit: inherit),
                input: .none,
                output: .string(limit: limit),
                error: .string(limit: limit)
            )
        }
        let deadline = Task {
            try? await Task.sleep(for: .seconds(seconds))  // ok-sleep: an upper bound, not synchronisation
            if !Task.isCancelled { work.cancel() }
        }
        defer { deadline.cancel() }
        let result = try await work.value
        return (Self.code(result.terminationStatus), result.standardOutput, result.standardError)
    }

    private static func makeEnvironment(_ values: [String: String], inherit: Bool) -> Environment {
        var keyed: [Environment.Key: String] = [:]
        for (key, value) in values { keyed[Environment.Key(stringLiteral: key)] = value }
        return inherit ? .inherit.updating(keyed) : .custom(keyed)
    }

    private static func code(_ status: TerminationStatus) -> Int32 {
        switch status {
        case .exited(let code): return code
        case .signaled(let signal): return 128 + signal
        }
    }
}

private final class Flag: Sendable {
    let value = Atomic(false)
}

public enum TestKitError: Error, CustomStringConvertible {
    case notStarted(String)
    public var description: String {
        switch self {
        case .notStarted(let path): return "\(path) did not start"
        }
    }
}
