import Testing

@testable import CurtainDaemon

/// How systemd's view of a unit becomes a launch's readiness or failure (pure: observations
/// in, an outcome out).
@Suite struct UnitWatchTests {
    func state(
        _ active: String?,
        _ sub: String? = nil,
        result: String? = nil,
        code: Int32? = nil,
        status: Int32? = nil
    ) -> UnitState {
        UnitState(activeState: active, subState: sub, result: result, execMainCode: code, execMainStatus: status)
    }

    @Test func activeIsReady() {
        var watch = UnitWatch(unit: "shop.service")
        #expect(watch.observe(.properties(state("activating", "start"))) == nil)
        #expect(watch.observe(.properties(state("active", "running"))) == .ready)
        // Concluded once: later changes do not matter to the launch.
        #expect(watch.observe(.properties(state("failed", "failed", result: "exit-code", code: 1, status: 3))) == nil)
        #expect(watch.outcome == .ready)
    }

    @Test func failureBeforeReadyCarriesResultAndExitStatus() {
        var watch = UnitWatch(unit: "shop.service")
        _ = watch.observe(.properties(state("activating", "start")))
        // The service interface's signal (Result, ExecMain*) comes before the unit's.
        #expect(watch.observe(.properties(state(nil, result: "exit-code", code: 1, status: 3))) == nil)
        #expect(
            watch.observe(.properties(state("failed", "failed")))
                == .failed("unit shop.service failed before it was ready: Result=exit-code, exit status 3")
        )
    }

    @Test func signalsAndCoreDumps() {
        #expect(state("failed", result: "signal", code: 2, status: 9).ending == "Result=signal, killed by signal 9")
        #expect(
            state("failed", result: "core-dump", code: 3, status: 11).ending
                == "Result=core-dump, dumped core on signal 11"
        )
        #expect(state("failed", result: "timeout").ending == "Result=timeout")
    }

    @Test func aStaleStopBeforeTheStartIsNotAFailure() {
        var watch = UnitWatch(unit: "shop.service")
        // The previous run going down (a restart, or a signal still in flight).
        #expect(watch.observe(.properties(state("deactivating", "stop-sigterm"))) == nil)
        #expect(watch.observe(.properties(state("failed", "failed", result: "signal", code: 2, status: 15))) == nil)
        #expect(watch.observe(.properties(state("inactive", "dead"))) == nil)
        #expect(watch.observe(.properties(state("activating", "start"))) == nil)
        #expect(watch.observe(.properties(state("active", "running"))) == .ready)
    }

    @Test func aRestartBySystemdFailsTheLaunch() {
        var watch = UnitWatch(unit: "shop.service")
        _ = watch.observe(.properties(state("activating", "start")))
        #expect(
            watch.observe(.properties(state("activating", "auto-restart", result: "exit-code", code: 1, status: 1)))
                == .failed(
                    "unit shop.service failed before it was ready and is being restarted by systemd: Result=exit-code, exit status 1"
                )
        )
    }

    @Test func exitingCleanlyBeforeReadyIsAFailure() {
        var watch = UnitWatch(unit: "shop.service")
        _ = watch.observe(.properties(state("activating", "start")))
        #expect(
            watch.observe(.properties(state("inactive", "dead", result: "success", code: 1, status: 0)))
                == .failed("unit shop.service stopped before it was ready: Result=success, exit status 0")
        )
    }

    @Test func theStartJobDecidesWhatTheSignalsDidNotShow() {
        // Too quick to be seen activating: the job's result and the unit read after it.
        var failed = UnitWatch(unit: "shop.service")
        #expect(
            failed.observe(
                .startJobEnded(
                    result: "failed",
                    state: state("failed", "failed", result: "exit-code", code: 1, status: 203)
                )
            )
                == .failed("unit shop.service did not start (job failed): Result=exit-code, exit status 203")
        )
        var done = UnitWatch(unit: "shop.service")
        #expect(done.observe(.startJobEnded(result: "done", state: state("active", "running"))) == .ready)
        var doneThenGone = UnitWatch(unit: "shop.service")
        #expect(
            doneThenGone.observe(
                .startJobEnded(result: "done", state: state("inactive", "dead", result: "success", code: 1, status: 0))
            )
                == .failed("unit shop.service stopped before it was ready: Result=success, exit status 0")
        )
    }

    @Test func theDestinationFileIsQuotedForSystemd() {
        // systemd's env-file parser takes \\, \", \` and \$ back literally inside double quotes.
        let file = UnitEnvironment.file([("CURTAIN_SCREEN", "home"), ("K", #"a"b $x`\"#)])
        #expect(
            file == #"""
                CURTAIN_SCREEN="home"
                K="a\"b \$x\`\\"

                """#
        )
    }
}
