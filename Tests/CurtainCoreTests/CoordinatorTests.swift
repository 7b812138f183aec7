import JSON
import Testing

@testable import CurtainCore

/// The launch coordinator on virtual time: every transition and every race of issue 6.
@Suite struct CoordinatorTests {
    static let shop = Destination(app: "shop", screen: "home")
    static let product = Destination(app: "shop", screen: "product", parameters: ["id": .int(42)])
    static let chat = Destination(app: "chat", screen: "thread")
    static let fallback = Destination(app: "launcher", screen: "home", reason: "unmatched")

    /// appear 0.5 s, reveal 0.6 s, minimum hold 0.3 s, maximum hold 10 s.
    static func request(
        _ id: UInt64,
        _ destination: Destination = shop,
        requirement: ReadinessStage = .ready,
        fallback: Destination? = nil,
        policy: ConcurrencyPolicy? = nil
    ) -> LaunchRequest {
        LaunchRequest(
            id: LaunchID(id),
            route: .normal(app: destination.app),
            destination: destination,
            requirement: requirement,
            appearDuration: 0.5,
            revealDuration: 0.6,
            fallback: fallback,
            policy: policy
        )
    }

    static func transitions(_ effects: [LaunchEffect]) -> [String] {
        effects.compactMap {
            guard case .transition(let t) = $0 else { return nil }
            return "\(t.launch) \(t.from?.rawValue ?? "-")→\(t.to.rawValue) @\(t.time)"
        }
    }

    @Test func aLaunchGoesThroughEveryState() {
        var c = Coordinator()
        let (decision, start) = c.request(Self.request(1), at: 0)
        #expect(decision == .started)
        #expect(
            start == [
                .transition(
                    .init(
                        launch: LaunchID(1),
                        from: nil,
                        to: .requested,
                        reason: "requested: normal start of 'shop'",
                        time: 0
                    )
                ),
                .showOverlay(LaunchID(1)),
                .startApp(LaunchID(1), Self.shop),  // loading starts with the appear, not after it
                .transition(
                    .init(launch: LaunchID(1), from: .requested, to: .presenting, reason: "overlay up", time: 0)
                ),
            ]
        )
        #expect(c.nextDeadline == 0.5)
        #expect(Self.transitions(c.advance(to: 0.7)) == ["1 presenting→holding @0.5"])
        #expect(c.nextDeadline == 10)  // the maximum hold
        let ready = c.appReady(LaunchID(1), stage: .ready, at: 1)
        #expect(Self.transitions(ready) == ["1 holding→revealing @1.0"])
        #expect(c.current?.reason == "app ready (ready)")
        let end = c.advance(to: 5)
        #expect(Self.transitions(end) == ["1 revealing→revealed @1.6"])
        #expect(end.contains(.hideOverlay(LaunchID(1), retain: true)))
        #expect(!end.contains(.releaseApp(LaunchID(1))))
        #expect(c.current == nil && c.nextDeadline == nil)
        #expect(c.launch(LaunchID(1))?.state == .revealed)
    }

    @Test func readinessBeforeTheAppearEndsIsRemembered() {
        var c = Coordinator()
        _ = c.request(Self.request(1), at: 0)
        #expect(c.appReady(LaunchID(1), stage: .ready, at: 0.2).isEmpty)
        #expect(
            Self.transitions(c.advance(to: 3)) == [
                "1 presenting→holding @0.5", "1 holding→revealing @0.5", "1 revealing→revealed @1.1",
            ]
        )
    }

    @Test func theMinimumHoldKeepsAFastAppCovered() {
        var c = Coordinator(settings: LaunchSettings(minimumHold: 1.2))
        _ = c.request(Self.request(1), at: 0)
        _ = c.appReady(LaunchID(1), stage: .ready, at: 0.1)
        #expect(Self.transitions(c.advance(to: 1.5)) == ["1 presenting→holding @0.5", "1 holding→revealing @1.2"])
        #expect(c.current?.reason == "app ready (ready), minimum hold over")
    }

    @Test func finerStagesCountOnlyWhenTheRouteAsksForThem() {
        var c = Coordinator()
        _ = c.request(Self.request(1, requirement: .content), at: 0)
        _ = c.appReady(LaunchID(1), stage: .skeleton, at: 0.6)
        #expect(c.current?.state == .holding && c.current?.readiness == .skeleton)
        #expect(Self.transitions(c.appReady(LaunchID(1), stage: .content, at: 0.8)) == ["1 holding→revealing @0.8"])

        var strict = Coordinator()
        _ = strict.request(Self.request(2, requirement: .ready), at: 0)
        _ = strict.appReady(LaunchID(2), stage: .interactive, at: 0.6)
        #expect(strict.current?.state == .holding)  // READY=1 is the only thing that satisfies `ready`
    }

    @Test func readyAfterTheMaximumHoldIsTooLate() {
        var c = Coordinator(settings: LaunchSettings(onTimeout: .fail))
        _ = c.request(Self.request(1), at: 0)
        let late = c.advance(to: 10.5)
        #expect(Self.transitions(late) == ["1 presenting→holding @0.5", "1 holding→failed @10.0"])
        #expect(late.contains(.releaseApp(LaunchID(1))) && late.contains(.hideOverlay(LaunchID(1), retain: false)))
        #expect(c.launch(LaunchID(1))?.reason == "not ready within 10 s")
        #expect(c.appReady(LaunchID(1), stage: .ready, at: 11).isEmpty)
        #expect(c.launch(LaunchID(1))?.state == .failed)
    }

    @Test func theFallbackGetsOneMoreMaximumHold() {
        var c = Coordinator()
        _ = c.request(Self.request(1, fallback: Self.fallback), at: 0)
        let timeout = c.advance(to: 10)
        #expect(timeout.contains(.startApp(LaunchID(1), Self.fallback)))
        #expect(c.current?.destination == Self.fallback && c.current?.state == .holding)
        #expect(c.current?.reason == "not ready within 10 s; falling back to launcher/home")
        #expect(Self.transitions(c.appReady(LaunchID(1), stage: .ready, at: 11)) == ["1 holding→revealing @11.0"])

        var never = Coordinator()
        _ = never.request(Self.request(2, fallback: Self.fallback), at: 0)
        #expect(Self.transitions(never.advance(to: 30)).last == "2 holding→failed @20.0")
    }

    /// The fallback's own app decides what "ready" means: one that reveals at `content` is
    /// not held to `ready` because the first app was.
    @Test func theFallbackUsesItsOwnAppsReadiness() {
        var c = Coordinator()
        var request = Self.request(1, Self.chat, requirement: .ready, fallback: Self.fallback)
        request.fallbackRequirement = .content
        _ = c.request(request, at: 0)
        _ = c.advance(to: 10)
        #expect(c.current?.destination == Self.fallback)
        #expect(Self.transitions(c.appReady(LaunchID(1), stage: .skeleton, at: 10.5)).isEmpty)
        #expect(Self.transitions(c.appReady(LaunchID(1), stage: .content, at: 11)) == ["1 holding→revealing @11.0"])
        #expect(c.current?.reason == "app ready (content)")
    }

    @Test func anAppCrashWhilePresentingFailsAtOnce() {
        var c = Coordinator(settings: LaunchSettings(onTimeout: .fail))
        _ = c.request(Self.request(1), at: 0)
        let crash = c.appFailed(LaunchID(1), reason: "exited with status 3", at: 0.2)
        #expect(Self.transitions(crash) == ["1 presenting→failed @0.2"])
        #expect(c.launch(LaunchID(1))?.reason == "exited with status 3")
        #expect(c.current == nil && c.nextDeadline == nil)
    }

    @Test func cancelWhileHolding() throws {
        var c = Coordinator()
        _ = c.request(Self.request(1), at: 0)
        let cancel = try c.control(LaunchID(1), .cancel, at: 2)
        #expect(Self.transitions(cancel) == ["1 presenting→holding @0.5", "1 holding→cancelled @2.0"])
        #expect(cancel.contains(.releaseApp(LaunchID(1))) && cancel.contains(.hideOverlay(LaunchID(1), retain: false)))
        #expect(throws: ControlError.ended(LaunchID(1), .cancelled)) { try c.control(LaunchID(1), .cancel, at: 3) }
    }

    @Test func aPushDuringTheRevealWaitsItsTurn() {
        var c = Coordinator()
        _ = c.request(Self.request(1), at: 0)
        _ = c.appReady(LaunchID(1), stage: .ready, at: 1)  // revealing 1.0 … 1.6
        let push = LaunchRequest(
            id: LaunchID(2),
            route: .push(app: "chat", payload: .object([:])),
            destination: Self.chat,
            appearDuration: 0.5,
            revealDuration: 0.6
        )
        let (decision, queued) = c.request(push, at: 1.2)
        #expect(decision == .queued(behind: LaunchID(1)))
        #expect(Self.transitions(queued) == ["2 -→requested @1.2"])
        #expect(c.current?.id == LaunchID(1) && c.queued.map(\.id) == [LaunchID(2)])
        let handover = c.advance(to: 1.7)
        #expect(Self.transitions(handover) == ["1 revealing→revealed @1.6", "2 requested→presenting @1.6"])
        #expect(handover.contains(.showOverlay(LaunchID(2))) && handover.contains(.startApp(LaunchID(2), Self.chat)))
        #expect(c.current?.requestedAt == 1.2)
    }

    @Test func aSecondLaunchRetargetsTheOverlayWithoutAFlicker() {
        var c = Coordinator()
        _ = c.request(Self.request(1), at: 0)
        let before = c.presentation(at: 0.3)
        let (decision, effects) = c.request(Self.request(2, Self.chat), at: 0.3)
        #expect(decision == .started)
        #expect(
            Self.transitions(effects) == [
                "1 presenting→cancelled @0.3", "2 -→requested @0.3", "2 requested→presenting @0.3",
            ]
        )
        #expect(!effects.contains(.showOverlay(LaunchID(2))))  // the overlay stays as it is
        #expect(effects.contains(.releaseApp(LaunchID(1))) && effects.contains(.startApp(LaunchID(2), Self.chat)))
        #expect(c.presentation(at: 0.3)?.time == before?.time)  // same appear, same instant
        #expect(c.launch(LaunchID(1))?.reason == "retargeted to launch 2")
        #expect(Self.transitions(c.advance(to: 0.6)) == ["2 presenting→holding @0.5"])  // the original appear's end
    }

    @Test func aRetargetToTheSameAppHandsItsInstanceOver() {
        var c = Coordinator()
        _ = c.request(Self.request(1, Self.shop), at: 0)
        let (_, effects) = c.request(Self.request(2, Self.product), at: 0.3)
        #expect(effects.contains(.retargetApp(from: LaunchID(1), to: LaunchID(2), Self.product)))
        #expect(
            !effects.contains(.releaseApp(LaunchID(1)))
                && !effects.contains { if case .startApp = $0 { true } else { false } }
        )
        // The deadline is the overlay's: counted from when it went up, not from the retarget.
        _ = c.appReady(LaunchID(2), stage: .skeleton, at: 0.6)
        #expect(c.nextDeadline == 10)
    }

    /// A launch every 100 ms for 5 minutes (virtual time): the overlay still lifts at least
    /// once per maximum hold (plus the fallback's hold and the transitions), and a queued
    /// launch waits at most the queue's length times that. An app takes 2 s to get ready
    /// after it is started; a retarget to the same app hands the loading instance over.
    @Test(arguments: [false, true]) func aStreamOfLaunchesNeverStallsTheOverlay(alternatingApps: Bool) {
        let settings = LaunchSettings(onTimeout: .fallback)
        var c = Coordinator(settings: settings)
        var readyAt: [LaunchID: Double] = [:]  // when each launch's app will be ready
        var lifted: [Double] = [0]  // when the overlay went down (revealed, failed, …)
        var queuedAt: [LaunchID: Double] = [:]
        var longestWait = 0.0
        var starts = 0
        var reveals = 0
        func apply(_ effects: [LaunchEffect], at t: Double) {
            for effect in effects {
                switch effect {
                case .startApp(let id, _):
                    readyAt[id] = t + 2
                    starts += 1
                case .retargetApp(let from, let to, _): readyAt[to] = readyAt.removeValue(forKey: from)
                case .releaseApp(let id): readyAt[id] = nil
                case .hideOverlay: lifted.append(t)
                case .transition(let tr):
                    if tr.from == nil, tr.reason.hasPrefix("queued") { queuedAt[tr.launch] = tr.time }
                    if tr.from == .requested, let since = queuedAt.removeValue(forKey: tr.launch) {
                        longestWait = max(longestWait, tr.time - since)
                    }
                    if tr.to == .revealed { reveals += 1 }
                default: break
                }
            }
        }
        var next: UInt64 = 1
        var t = 0.0
        let end = 300.0
        while t < end {
            let arrival = Double(next - 1) * 0.1
            let ready = c.current.flatMap { readyAt[$0.id] }
            let wake = [arrival, ready, c.nextDeadline].compactMap { $0 }.filter { $0 >= t }.min() ?? end
            t = wake
            if let current = c.current, let at = readyAt[current.id], at <= t {
                readyAt[current.id] = .infinity
                apply(c.appReady(current.id, stage: .ready, at: t), at: t)
            }
            apply(c.advance(to: t), at: t)
            if arrival <= t {
                let destination =
                    alternatingApps && next % 2 == 0
                    ? Self.chat
                    : Destination(app: "shop", screen: "product", parameters: ["id": .int(Int64(next))])
                apply(c.request(Self.request(next, destination, fallback: Self.fallback), at: t).1, at: t)
                next += 1
            }
        }
        let cycle = settings.maximumHold + 0.5 + 0.6  // maximum hold + appear + reveal
        let gaps = zip(lifted.dropFirst(), lifted).map { $0 - $1 }
        // Same app: it is never restarted, so it gets ready and reveals well within the hold.
        // Alternating apps: each retarget restarts an app, so only the deadline ends it —
        // then the fallback gets one more hold.
        let bound = alternatingApps ? cycle + settings.maximumHold : cycle
        #expect(
            reveals > 0 && (gaps.max() ?? .infinity) <= bound,
            "reveals \(reveals), longest gap \(gaps.max() ?? -1)"
        )
        #expect(longestWait <= Double(settings.maximumQueued) * bound, "longest wait in the queue \(longestWait)")
        if !alternatingApps { #expect(starts <= reveals + 1, "\(starts) starts for \(reveals) reveals") }
    }

    @Test func duplicatesAreMergedWithinTheWindow() {
        var c = Coordinator()
        _ = c.request(Self.request(1, Self.product), at: 0)
        let (merged, none) = c.request(Self.request(2, Self.product), at: 0.4)
        #expect(merged == .merged(into: LaunchID(1)) && none.isEmpty)
        #expect(c.launch(LaunchID(2)) == nil)
        let (later, _) = c.request(Self.request(3, Self.product), at: 1.5)
        #expect(later == .started && c.current?.id == LaunchID(3))
    }

    @Test func ignoreAndAFullQueueAreBusy() {
        var c = Coordinator(settings: LaunchSettings(maximumQueued: 1))
        _ = c.request(Self.request(1), at: 0)
        #expect(c.request(Self.request(2, Self.chat, policy: .ignore), at: 0.1).0 == .busy(LaunchID(1)))
        #expect(c.request(Self.request(3, Self.chat, policy: .queue), at: 0.1).0 == .queued(behind: LaunchID(1)))
        #expect(c.request(Self.request(4, Self.fallback, policy: .queue), at: 0.1).0 == .busy(LaunchID(1)))
        #expect(c.launches.map(\.id) == [LaunchID(1), LaunchID(3)])
        #expect(c.inFlight.map(\.id) == [LaunchID(1), LaunchID(3)])
        #expect(c.ids == [LaunchID(1), LaunchID(3)])
    }

    @Test func replaceStartsOver() {
        var c = Coordinator(settings: LaunchSettings(whileLoading: .replace))
        _ = c.request(Self.request(1), at: 0)
        let (_, effects) = c.request(Self.request(2, Self.chat), at: 0.3)
        #expect(
            effects.contains(.hideOverlay(LaunchID(1), retain: false)) && effects.contains(.showOverlay(LaunchID(2)))
        )
        #expect(c.presentation(at: 0.3)?.time == 0)
        #expect(c.nextDeadline == 0.8)
    }

    @Test func seekFinishAndCancelMidReveal() throws {
        var c = Coordinator()
        _ = c.request(Self.request(1), at: 0)
        _ = c.appReady(LaunchID(1), stage: .ready, at: 1)  // reveal 1.0 … 1.6
        _ = try c.control(LaunchID(1), .seek(0.5), at: 1.1)  // paused at half
        #expect(c.presentation(at: 5)?.time == 0.3 && c.presentation(at: 5)?.isMoving == false)
        #expect(c.nextDeadline == nil)
        _ = try c.control(LaunchID(1), .finish, at: 5)  // (1 − 0.5) · 0.6 s to go
        #expect(c.nextDeadline == 5.3)
        #expect(Self.transitions(c.advance(to: 6)) == ["1 revealing→revealed @5.3"])

        var back = Coordinator()
        _ = back.request(Self.request(2), at: 0)
        _ = back.appReady(LaunchID(2), stage: .ready, at: 1)
        let cancel = try back.control(LaunchID(2), .cancel, at: 1.3)  // 0.3 s back to the start
        #expect(cancel.isEmpty && back.nextDeadline == 1.6)
        let end = back.advance(to: 2)
        #expect(Self.transitions(end) == ["2 revealing→cancelled @1.6"])
        #expect(end.contains(.hideOverlay(LaunchID(2), retain: false)))
    }

    @Test func badControlsChangeNothing() throws {
        var c = Coordinator()
        _ = c.request(Self.request(1), at: 0)
        #expect(throws: ControlError.noSuchLaunch(LaunchID(9))) { try c.control(LaunchID(9), .pause, at: 0.1) }
        #expect(throws: ControlError.clock(.progressOutOfRange(2))) { try c.control(LaunchID(1), .seek(2), at: 0.1) }
        #expect(throws: ControlError.noTransition(LaunchID(1), .holding)) {
            try c.control(LaunchID(1), .pause, at: 0.6)
        }
        // The failed control at 0.6 did not even advance the coordinator.
        #expect(c.current?.state == .presenting && c.now == 0)
        #expect(c.presentation(at: 0.25)?.time == 0.25)
    }

    @Test func aZeroLengthAppearHoldsAtOnce() {
        var c = Coordinator()
        var request = Self.request(1)
        request.appearDuration = 0
        let (_, effects) = c.request(request, at: 2)
        #expect(
            Self.transitions(effects) == [
                "1 -→requested @2.0", "1 requested→presenting @2.0", "1 presenting→holding @2.0",
            ]
        )
    }

    @Test func historyIsBounded() {
        var c = Coordinator(settings: LaunchSettings(onTimeout: .fail, history: 3))
        for i in 1...5 {
            _ = c.request(Self.request(UInt64(i)), at: Double(i) * 20)
            _ = c.advance(to: Double(i) * 20 + 11)
        }
        #expect(c.launches.map(\.id.value) == [5, 4, 3])
        // The ended ones are known, none is in flight; a new one is both.
        #expect(c.ids == Set([5, 4, 3].map(LaunchID.init)))
        #expect(c.inFlight.isEmpty)
        _ = c.request(Self.request(6), at: 200)
        #expect(c.inFlight.map(\.id.value) == [6])
        #expect(c.ids == Set([6, 5, 4, 3].map(LaunchID.init)))
    }
}

extension CoordinatorTests {
    @Test func stoppingCancelsEverythingWithAFinalTransition() {
        var c = Coordinator()
        _ = c.request(Self.request(1), at: 0)
        _ = c.request(Self.request(2, Self.chat, policy: .queue), at: 0.1)
        let stop = c.cancelAll("daemon stopping", at: 0.2)
        #expect(Self.transitions(stop) == ["2 requested→cancelled @0.2", "1 presenting→cancelled @0.2"])
        #expect(c.current == nil && c.queued.isEmpty && c.nextDeadline == nil)
    }
}

extension CoordinatorTests {
    @Test func withoutRetainTheOverlayIsSimplyRemoved() {
        var c = Coordinator()
        var request = Self.request(1)
        request.retain = false
        request.textVariant = 2
        _ = c.request(request, at: 0)
        #expect(c.current?.textVariant == 2)
        _ = c.appReady(LaunchID(1), stage: .ready, at: 0.1)
        let end = c.advance(to: 5)
        #expect(end.contains(.hideOverlay(LaunchID(1), retain: false)))
    }
}

extension CoordinatorTests {
    @Test func extendTimeoutMovesTheMaximumHoldOutNeverIn() {
        var c = Coordinator(settings: LaunchSettings(onTimeout: .fail))
        _ = c.request(Self.request(1), at: 0)
        _ = c.extendHold(LaunchID(1), by: 15, at: 8)
        #expect(c.nextDeadline == 23)
        _ = c.extendHold(LaunchID(1), by: 1, at: 9)
        #expect(c.nextDeadline == 23)
        #expect(Self.transitions(c.advance(to: 30)).last == "1 holding→failed @23.0")
    }
}
