import CurtainConfig
import CurtainCore
import CurtainTestKit
import Logging
import Synchronization
import Testing

@testable import CurtainDaemon

/// App events reach the driver through `AppSupervisor.relayEvents`: handed over on the
/// backend's own thread to the driver's inbox, which its loop drains on its executor — no
/// stream and no consumer task between an app's READY=1 and `revealing` (issue 18).
@Suite struct AppEventRelayTests {
    final class Collected: Sendable {
        let events = Mutex<[AppEvent]>([])
        let finished = Atomic(false)
    }

    /// Events published before anyone relays them wait, in order, and go first; those after
    /// follow in order; `finish` is passed on; nothing is taken after it.
    @Test func thePublisherKeepsEveryEventInOrder() {
        let publisher = AppEventPublisher()
        publisher.status(LaunchID(1), "one")
        publisher.ready(LaunchID(1), .ready, nil, [:])
        let collected = Collected()
        publisher.relay(
            to: { event in collected.events.withLock { $0.append(event) } },
            finished: { collected.finished.store(true, ordering: .relaxed) }
        )
        publisher.failed(LaunchID(2), "gone")
        // A second relay does not take them over.
        publisher.relay(to: { _ in Issue.record("a second relay got an event") })
        publisher.status(LaunchID(2), "two")
        publisher.finish()
        publisher.status(LaunchID(3), "after the end")
        #expect(
            collected.events.withLock { $0 } == [
                .status(LaunchID(1), "one"), .ready(LaunchID(1), .ready, status: nil, elements: [:]),
                .failed(LaunchID(2), reason: "gone"), .status(LaunchID(2), "two"),
            ]
        )
        let finished = collected.finished.load(ordering: .relaxed)
        #expect(finished)
    }

    /// A backend that only relays (its `events` stream is empty).
    final class RelayingApps: AppSupervisor, Sendable {
        let handler = Mutex<(@Sendable (AppEvent) -> Void)?>(nil)
        var events: AsyncStream<AppEvent> { AsyncStream { $0.finish() } }
        func relayEvents(to handler: @escaping @Sendable (AppEvent) -> Void) { self.handler.withLock { $0 = handler } }
        func start(_ launch: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async
        {}
        func release(_ launch: LaunchID) async {}
        func retarget(
            from: LaunchID,
            to: LaunchID,
            _ destination: Destination,
            route: Route,
            snapshot: ConfigurationSnapshot
        ) async {}
    }

    /// The app's READY=1, relayed from another thread while the loop waits, ends the hold: the
    /// observer sees every state event in order.
    @Test(.timeLimit(.minutes(1))) func aRelayedReadyRevealsTheLaunch() async throws {
        let clock = ManualClock()
        let broadcaster = Broadcaster()
        let observer = broadcaster.add(.init(launch: nil, frames: false), limit: 1000)
        let apps = RelayingApps()
        let driver = LaunchDriver(
            settings: LaunchDriverTests.configuration.daemon.launchSettings,
            fps: 10,
            clock: clock,
            broadcaster: broadcaster,
            supervisor: apps,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        let loop = Task { await driver.run() }
        await clock.sleepers()
        _ = try await driver.launch(
            .normal(app: "shop"),
            policy: nil,
            snapshot: ConfigurationSnapshot(LaunchDriverTests.configuration)
        )
        let relay = try #require(apps.handler.withLock { $0 })
        await Task.detached { relay(.ready(LaunchID(1), .ready, status: nil, elements: [:])) }.value
        // The post woke the loop on the driver's executor; a call queued behind that wake-up
        // returns once the loop has applied it (before the manual clock moves on).
        await driver.heartbeat()
        var states: [LaunchState] = []
        while states.last?.isEnded != true {
            await clock.sleepers()
            clock.advance(by: .seconds(1))
            while observer.mailbox.count > 0, case .event(.state(let t))? = await observer.mailbox.next() {
                states.append(t.to)
            }
        }
        #expect(states == [.requested, .presenting, .holding, .revealing, .revealed])
        loop.cancel()
    }
}
