import CurtainTestKit
import Testing

/// Tools the certification needs, installed by `make setup`. Outside CI a missing tool skips
/// the test that needs it; with CI=true it fails (nothing that CI can run may be skipped).
enum Tools {
    static let python = TestEnvironment.repository.appendingPathComponent(".venv/bin/python").path
    static let goCertification = "/usr/bin/varlink-go-certification"
    static let activator = "/usr/bin/systemd-socket-activate"
    static let ours = TestEnvironment.product("varlink-certification")

    /// Whether the python reference (`varlink` from PyPI) is importable.
    static func pythonVarlink() async -> Bool {
        guard TestEnvironment.isExecutable(python) else { return false }
        return (try? await TestProcess.run(python, ["-c", "import varlink"]).status) == 0
    }
}

func socketPath() -> String {
    TestEnvironment.temporaryDirectory("cert").appendingPathComponent("cert.sock").path
}

/// Records a missing tool as a failure in CI, and lets the caller skip otherwise.
func require(_ available: Bool, _ what: String) -> Bool {
    if !available {
        if TestEnvironment.inCI { Issue.record("\(what) is not installed; run `make setup`") }
        return false
    }
    return true
}
