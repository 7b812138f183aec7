import CurtainConfig
import CurtainCore
import CurtainTestKit
import Logging
import Testing
import Varlink

@testable import CurtainDaemon

/// The driver on a manual clock: the coordinator's deadlines and the frame clock together.
@Suite struct LaunchDriverTests {
    static let configuration = try! Configuration(
        toml: """
            [[apps]]
            name = "shop"
            exec = ["/bin/true"]
            screens = ["home"]
            default_screen = "home"
            """,
        file: "test.toml"
    )

    struct Rig {
        let configuration = LaunchDriverTests.configuration
        let clock = ManualClock()
        let broadcaster = Broadcaster()
        let driver: LaunchDriver<ManualClock>
        let mailbox: ObserverMailbox
        let loop: Task<Void, Never>

        init(fps: Double = 10) async {
            let observer = broadcaster.add(.init(launch: nil, frames: true), limit: 1000)
            mailbox = observer.mailbox
            driver = LaunchDriver(
                settings: LaunchDriverTests.configuration.daemon.launchSettings,
                fps: fps,
                clock: clock,
                broadcaster: broadcaster,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            )
            let driver = self.driver
            loop = Task { await driver.run() }
            await clock.sleepers()
        }

        /// The next item an observer gets: ("state", "presenting") or ("frame", index).
        func next() async -> [String: JSONValue] {
            switch await mailbox.next() {
            case .event(let e)?: return Wire.event(e)
            case .frame(let f)?: return f.event
            case nil: return [:]
            }
        }

        /// Launches shop, takes its first events and frame 0 at time 0, and returns the frame
        /// the driver then made ahead, while it waits for frame 1's deadline.
        func frameMadeAheadOfTheSecond() async throws -> SharedFrame {
            _ = try await driver.launch(
                .normal(app: "shop"),
                policy: nil,
                snapshot: ConfigurationSnapshot(configuration)
            )
            #expect(await next()["to"] == "requested")
            #expect(await next()["to"] == "presenting")
            #expect(await next()["frame"] == 0)
            await clock.sleepers()
            return try #require(await driver.preparedFrame)
        }

        func advance(_ seconds: Double) async {
            await clock.sleepers()
            clock.advance(by: .seconds(seconds))
        }
    }

    /// A launch requested between two grid points: its first frame is the next grid point,
    /// never the one before the request (the audit saw 4.4667 for a request at 4.4755).
    @Test(.timeLimit(.minutes(1))) func theFirstFrameIsNeverStampedBeforeTheRequest() async throws {
        let rig = await Rig()
        await rig.advance(0.25)  // between frames 2 (0.2) and 3 (0.3)
        _ = try await rig.driver.launch(
            .normal(app: "shop"),
            policy: nil,
            snapshot: ConfigurationSnapshot(Self.configuration)
        )
        #expect(await rig.next()["to"] == "requested")
        #expect(await rig.next()["to"] == "presenting")
        let first = await rig.next()
        #expect(first["kind"] == "frame" && first["frame"] == 3, "\(first)")
        if case .float(let time)? = first["time"] { #expect(time >= 0.25) } else { Issue.record("no time: \(first)") }
        rig.loop.cancel()
    }

    @Test(.timeLimit(.minutes(1))) func framesLandOnTheGridAtTheirScheduledTimes() async throws {
        let rig = await Rig()
        _ = try await rig.driver.launch(
            .normal(app: "shop"),
            policy: nil,
            snapshot: ConfigurationSnapshot(Self.configuration)
        )
        #expect(await rig.next()["to"] == "requested")
        #expect(await rig.next()["to"] == "presenting")
        let first = await rig.next()
        #expect(
            first["kind"] == "frame" && first["frame"] == 0 && first["time"] == 0.0 && first["transition"] == "appear"
        )

        await rig.advance(0.1)
        let second = await rig.next()
        #expect(second["frame"] == 1 && second["time"] == .float(1.0 / 10))

        // 0.45 s late: the appear has ended meanwhile (0.3 s); one frame, the current one,
        // showing the appear's last state — frames 2 to 4 are skipped, not burst.
        await rig.advance(0.45)
        #expect(await rig.next()["to"] == "holding")
        let late = await rig.next()
        #expect(late["frame"] == 5 && late["time"] == .float(5.0 / 10))
        let appear = try ConfigurationSnapshot(Self.configuration).transitions.get().appear.timeline
        let expected = appear.evaluate(at: appear.duration)
        if case .object(let values)? = late["values"], let index = expected.values.indices.first {
            let key = appear.slots[index].key
            #expect(
                values[key]
                    == .array(
                        (0..<expected.values[index].kind.wireComponentCount).map {
                            .float(expected.values[index].component($0))
                        }
                    )
            )
        } else {
            Issue.record("frame without values: \(late)")
        }

        // Holding is still: no frame until something moves. The app gets ready at 1.0.
        await rig.advance(0.45)
        try await rig.driver.appReady(LaunchID(1), stage: .ready, status: nil)
        #expect(await rig.next()["to"] == "revealing")
        let reveal = await rig.next()
        #expect(reveal["transition"] == "reveal" && reveal["frame"] == 10)
        await rig.advance(1)
        let final = await rig.next()  // the reveal's exact end state, then the event
        #expect(final["final"] == true && final["time"] == .float(1.6))
        #expect(await rig.next()["to"] == "revealed")
        #expect(await rig.driver.list().first?.state == .revealed)
        #expect(await rig.driver.statusLine() == "idle")
        rig.loop.cancel()
    }

    /// The next frame is made while the loop waits for its deadline, and that very frame is
    /// what the observer gets at it.
    @Test(.timeLimit(.minutes(1))) func theNextFrameIsMadeBeforeItsDeadline() async throws {
        let rig = await Rig()
        let made = try await rig.frameMadeAheadOfTheSecond()
        #expect(made.frame.index == 1 && made.frame.time == 0.1)
        await rig.advance(0.1)
        guard case .frame(let sent)? = await rig.mailbox.next() else {
            Issue.record("no frame")
            return
        }
        #expect(sent === made)
        rig.loop.cancel()
    }

    /// A frame made ahead that no longer shows what is on screen at its deadline (the appear
    /// was paused meanwhile) is not sent: the frame due then is made again.
    @Test(.timeLimit(.minutes(1))) func aFrameMadeAheadIsNotSentOnceWhatItShowsChanged() async throws {
        let rig = await Rig()
        let made = try await rig.frameMadeAheadOfTheSecond()
        #expect(made.frame.progress > 0)  // frame 1, a third into the 0.3 s appear
        _ = try await rig.driver.control(LaunchID(1), .pause)
        await rig.advance(0.1)
        var item = await rig.mailbox.next()
        while case .event? = item { item = await rig.mailbox.next() }
        guard case .frame(let sent)? = item else {
            Issue.record("no frame")
            return
        }
        #expect(sent !== made)
        #expect(sent.frame.index == 1 && sent.frame.progress == 0, "\(sent.frame)")
        rig.loop.cancel()
    }

    @Test(.timeLimit(.minutes(1))) func stoppingCancelsTheLaunchAndEndsTheStreams() async throws {
        let rig = await Rig()
        _ = try await rig.driver.launch(
            .normal(app: "shop"),
            policy: nil,
            snapshot: ConfigurationSnapshot(Self.configuration)
        )
        #expect(await rig.driver.statusLine() == "1 launch: shop presenting")
        await rig.driver.stop()
        var last: LaunchTransition?
        while let item = await rig.mailbox.next() {
            if case .event(.state(let transition)) = item { last = transition }
        }
        #expect(last?.to == .cancelled && last?.reason == "daemon stopping")
        await #expect(throws: LaunchError.shuttingDown) {
            try await rig.driver.launch(
                .normal(app: "shop"),
                policy: nil,
                snapshot: ConfigurationSnapshot(Self.configuration)
            )
        }
        rig.loop.cancel()
    }

    @Test func unknownRoutesAreRefusedPrecisely() async {
        let rig = await Rig()
        await #expect(throws: LaunchError.route(.unknownApp("tv"))) {
            try await rig.driver.launch(
                .normal(app: "tv"),
                policy: nil,
                snapshot: ConfigurationSnapshot(Self.configuration)
            )
        }
        await #expect(throws: LaunchError.noSuchLaunch(LaunchID(9))) {
            try await rig.driver.appReady(LaunchID(9), stage: .ready, status: nil)
        }
        #expect(await rig.driver.list().isEmpty)
        rig.loop.cancel()
    }
}

extension LaunchDriverTests {
    /// The reveal is rebuilt from the elements the app reports: hero pairs them by id.
    @Test(.timeLimit(.minutes(1))) func heroFliesTheLogoToWhereTheAppReportsIt() async throws {
        var configuration = Self.configuration
        configuration.transitions.reveal = Presets.document(named: "hero")!
        let rig = await Rig()
        _ = try await rig.driver.launch(
            .normal(app: "shop"),
            policy: nil,
            snapshot: ConfigurationSnapshot(configuration)
        )
        let target = Hero.Frame(x: 10, y: 20, width: 40, height: 40)
        try await rig.driver.appReady(
            LaunchID(1),
            stage: .ready,
            status: nil,
            elements: ["logo": Hero.Element(target), "title": Hero.Element(.init(x: 0, y: 80, width: 100, height: 20))]
        )
        await rig.advance(5)
        var lastReveal: [String: JSONValue]?
        while let item = await rig.mailbox.next() {
            if case .frame(let f) = item, f.frame.transition == .reveal { lastReveal = f.event }
            if case .event(.state(let t)) = item, t.to == .revealed { break }
        }
        // 5 s late, no frame on the grid falls inside the reveal; its end state still goes out.
        #expect(lastReveal?["final"] == true)
        guard case .object(let values)? = lastReveal?["values"] else {
            Issue.record("no reveal frame")
            return
        }
        #expect(values["hero.logo.position"] == [30.0, 40.0])
        // The splash has a title too (scenes/hero): matched, it flies to the app's.
        #expect(values["hero.title.position"] == [50.0, 90.0])
        rig.loop.cancel()
    }

    @Test func elementsAreCheckedAtTheBoundary() throws {
        func frames(_ count: Int, id: (Int) -> String = { "e\($0)" }) -> JSONValue {
            .object(
                Dictionary(
                    uniqueKeysWithValues: (0..<count).map {
                        (id($0), JSONValue.object(["x": 0, "y": 0, "width": 1, "height": 1]))
                    }
                )
            )
        }
        #expect(try Wire.elements(frames(32)).count == 32)
        #expect(throws: VarlinkError.invalidParameter("elements")) { try Wire.elements(frames(33)) }
        #expect(try Wire.elements(frames(1) { _ in String(repeating: "a", count: 64) }).count == 1)
        #expect(throws: VarlinkError.invalidParameter("elements")) {
            try Wire.elements(frames(1) { _ in String(repeating: "a", count: 65) })
        }
        #expect(throws: VarlinkError.invalidParameter("elements")) { try Wire.elements(frames(1) { _ in "logo.x" }) }
        // A bad number is named exactly.
        #expect(throws: VarlinkError.invalidParameter("elements.logo.width")) {
            try Wire.elements(.object(["logo": .object(["x": 0, "y": 0, "width": -1, "height": 1])]))
        }
    }
}

extension LaunchDriverTests {
    /// An app backend that records what it is asked to start.
    struct RecordingApps: AppSupervisor {
        var events: AsyncStream<AppEvent> { AsyncStream { $0.finish() } }
        let started: AsyncStream<(LaunchID, ConfigurationSnapshot)>.Continuation
        func start(_ launch: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async
        {
            started.yield((launch, snapshot))
        }
        func release(_ launch: LaunchID) async {}
        func retarget(
            from: LaunchID,
            to: LaunchID,
            _ destination: Destination,
            route: Route,
            snapshot: ConfigurationSnapshot
        ) async {}
    }

    /// A reload between a launch's request and its app's start does not split the launch
    /// across two configurations: the app is started from the snapshot the launch was
    /// requested with.
    @Test(.timeLimit(.minutes(1))) func theAppStartsFromTheLaunchsOwnConfigurationSnapshot() async throws {
        let state = SharedConfiguration(ConfigurationHolder(Self.configuration))
        let (started, recorder) = AsyncStream.makeStream(of: (LaunchID, ConfigurationSnapshot).self)
        let driver = LaunchDriver(
            settings: Self.configuration.daemon.launchSettings,
            fps: 10,
            clock: ManualClock(),
            broadcaster: Broadcaster(),
            supervisor: RecordingApps(started: recorder),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        let snapshot = state.snapshot
        try state.adopt(
            try Configuration(
                toml: """
                    [[apps]]
                    name = "shop"
                    exec = ["/bin/false"]
                    screens = ["home"]
                    default_screen = "home"
                    """,
                file: "reloaded.toml"
            ),
            file: "reloaded.toml",
            allowEmpty: false
        )
        _ = try await driver.launch(.normal(app: "shop"), policy: nil, snapshot: snapshot)
        var starts = started.makeAsyncIterator()
        let (id, used) = try #require(await starts.next())
        #expect(id == LaunchID(1))
        #expect(used.app(named: "shop")?.exec == ["/bin/true"])
        #expect(state.current.apps.first?.exec == ["/bin/false"])
    }
}
