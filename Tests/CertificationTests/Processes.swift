import Foundation
import Testing

/// Tools the certification needs, installed by `make setup`. Outside CI a missing tool skips
/// the test that needs it; with CI=true it fails (nothing that CI can run may be skipped).
enum Tools {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = repository.appendingPathComponent(".venv/bin/python").path
    static let goCertification = "/usr/bin/varlink-go-certification"
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Our certification binary, built next to the test bundle.
    static let ours: String = {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, here.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("varlink-certification")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
        }
        return here.appendingPathComponent("varlink-certification").path
    }()

    static func available(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Whether the python reference (`varlink` from PyPI) is importable.
    static let pythonVarlink: Bool = {
        guard available(python) else { return false }
        return (try? Child(python, ["-c", "import varlink"]).finishBlocking(within: 30).status) == 0
    }()
}

/// A child process whose output is collected; waits are bounded.
final class Child: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let lock = NSLock()
    private var collected = Data()
    private let lineArrived = DispatchSemaphore(value: 0)

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            guard let self else { return }
            let data = handle.availableData
            self.lock.lock(); self.collected.append(data); self.lock.unlock()
            self.lineArrived.signal()
        }
        try process.run()
    }

    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: collected, as: UTF8.self) }

    /// Waits until the output contains `marker`, or `seconds` pass (on a thread of its own).
    func waitFor(_ marker: String, within seconds: Double) async -> Bool {
        await offload { self.waitForBlocking(marker, within: seconds) }
    }

    /// Waits for exit (killing the child after `seconds`) and returns status and output.
    func finish(within seconds: Double) async -> (status: Int32, output: String) {
        await offload { self.finishBlocking(within: seconds) }
    }

    private func waitForBlocking(_ marker: String, within seconds: Double) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while !text.contains(marker) {
            if lineArrived.wait(timeout: deadline) == .timedOut { return text.contains(marker) }
        }
        return true
    }

    func finishBlocking(within seconds: Double) -> (status: Int32, output: String) {
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        if process.isRunning, exited.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            _ = exited.wait(timeout: .now() + 5)
        }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        lock.lock(); collected.append(rest); lock.unlock()
        return (process.terminationStatus, text)
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}

func socketPath() -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cert-\(getpid())-\(UUID().uuidString.prefix(8))")
    try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("cert.sock").path
}

/// Records a missing tool as a failure in CI, and lets the caller skip otherwise.
func require(_ available: Bool, _ what: String) -> Bool {
    if !available {
        if Tools.inCI { Issue.record("\(what) is not installed; run `make setup`") }
        return false
    }
    return true
}

/// Runs blocking work on a thread of its own and awaits its result, so waiting for a child
/// never occupies the concurrency pool.
func offload<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
