import CurtainTestKit
import Testing

/// `curtainctl watch` checks --fps and the id against the daemon's ranges before it connects:
/// out of range is a usage error (status 2) naming the option; at the limits it goes on to
/// connect (status 3: no daemon at that path).
@Suite struct WatchValidationTests {
    static func watch(_ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await TestProcess.run(CLI.executable, ["watch", "--socket", "/nonexistent/curtain.sock"] + arguments)
    }

    @Test func fpsOutOfRangeIsAUsageError() async throws {
        for fps in ["1e-300", "1e-18", "0", "-1", "0.0999", "1000.001", "inf", "nan"] {
            let r = try await Self.watch("--fps=\(fps)")
            #expect(r.status == 2 && r.stderr.contains("--fps must be a number from 0.1 to 1000"), "\(fps): \(r)")
        }
        for fps in ["0.1", "1000", "60"] {
            let r = try await Self.watch("--fps=\(fps)")
            #expect(r.status == 3, "\(fps): \(r)")
        }
    }

    @Test func theLaunchIdIsPositive() async throws {
        let r = try await Self.watch("0")
        #expect(r.status == 2 && r.stderr.contains("the launch id must be a positive integer (got 0)"), "\(r)")
        #expect(try await Self.watch("1").status == 3)
    }
}
