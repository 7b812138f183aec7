import Testing

@testable import CurtainCore

/// `recordEnded`: a launch a previous daemon had in flight goes into the history as it ended.
@Suite struct CoordinatorRecoveryTests {
    @Test func anEndedLaunchIsAnsweredFromTheHistoryAndTakesNothingElse() {
        var c = Coordinator()
        let shop = Destination(app: "shop", screen: "home")
        let recorded = c.recordEnded(
            LaunchID(7),
            route: .normal(app: "shop"),
            destination: shop,
            state: .failed,
            reason: "daemon restarted",
            requestedAt: -3,
            endedAt: 0
        )
        #expect(recorded)
        let launch = c.launch(LaunchID(7))
        #expect(launch?.state == .failed && launch?.reason == "daemon restarted" && launch?.requestedAt == -3)
        #expect(c.current == nil && c.queued.isEmpty && c.nextDeadline == nil)
        // A new launch starts as if nothing were in flight.
        #expect(c.request(CoordinatorTests.request(8), at: 0).0 == .started)
    }

    @Test func anIdAlreadyKnownOrAStateThatIsNotAnEndIsRefused() {
        var c = Coordinator()
        let shop = Destination(app: "shop", screen: "home")
        _ = c.request(CoordinatorTests.request(1), at: 0)
        let known = c.recordEnded(
            LaunchID(1),
            route: .normal(app: "shop"),
            destination: shop,
            state: .failed,
            reason: "x",
            requestedAt: 0,
            endedAt: 0
        )
        #expect(!known)
        #expect(c.launch(LaunchID(1))?.state == .presenting)
        let notEnded = c.recordEnded(
            LaunchID(2),
            route: .normal(app: "shop"),
            destination: shop,
            state: .holding,
            reason: "x",
            requestedAt: 0,
            endedAt: 0
        )
        #expect(!notEnded)
        #expect(c.launch(LaunchID(2)) == nil)
    }
}
