#if canImport(Glibc)
import Glibc
#endif
import CurtainConfig
import CurtainCore
import Logging

/// Runs one display's `Coordinator` in time: feeds it inputs stamped with the clock, carries
/// out its effects (app supervision, observers, the journal, STATUS=), and drives the frame
/// clock — one loop that sleeps until the coordinator's next deadline or the next frame,
/// whichever is first. The clock is a parameter: tests run the whole driver on a manual one.
actor LaunchDriver<C: Clock> where C.Duration == Duration {
    struct Compiled: Sendable {
        let appear: Timeline
        var reveal: Timeline
        let appearKeys: [String]
        var revealKeys: [String]
        /// The transitions' lengths (see `length(_:)`), computed once, not per frame.
        let appearLength: Double
        var revealLength: Double
        /// What the reveal is rebuilt from once the app reports its elements.
        let revealDocument: TimelineDocument
        let screen: (width: Double, height: Double)
    }

    private var coordinator: Coordinator
    private let clock: C
    private let epoch: C.Instant
    private let grid: FrameGrid
    let broadcaster: Broadcaster
    private let supervisor: any AppSupervisor
    private let logger: Logger
    private let onStatus: @Sendable (String) -> Void

    private var nextID: UInt64 = 0
    private var compiled: [LaunchID: Compiled] = [:]
    /// The appear transition on screen (kept when a launch takes over the overlay).
    private var overlay: Compiled?
    private var destinations: [LaunchID: Destination] = [:]
    private var lastFrame: Int?
    /// Whether the last frame sent showed a still overlay (holding, paused): it is not sent again.
    private var lastFrameWasStill = false
    private var statistics = Statistics()
    private var status = ""
    private var sleeper: Task<Void, Never>?
    private var stopped = false

    /// Told the launches in flight and the last id given whenever either changes (the state
    /// file a restarted daemon reads).
    private let onLaunches: (@Sendable (_ inFlight: [Launch], _ lastID: UInt64) -> Void)?
    private var persisted: (ids: [LaunchID], lastID: UInt64)?
    static var restartReason: String { "daemon restarted" }

    /// `firstID`: ids continue where a previous daemon stopped. `interrupted`: the launches it
    /// had in flight when it died, put in the history as failed ("daemon restarted").
    init(display: String = "default", settings: LaunchSettings, fps: Double, clock: C, broadcaster: Broadcaster,
         supervisor: any AppSupervisor = ExternalApps(), logger: Logger, onStatus: @escaping @Sendable (String) -> Void = { _ in },
         firstID: UInt64 = 1, interrupted: [RuntimeState.RecordedLaunch] = [],
         onLaunches: (@Sendable (_ inFlight: [Launch], _ lastID: UInt64) -> Void)? = nil) {
        coordinator = Coordinator(display: display, settings: settings)
        self.clock = clock
        epoch = clock.now
        let origin = Self.boottimeMicroseconds(at: epoch)
        clockOriginMicroseconds = origin
        nextID = max(firstID, 1) - 1
        for launch in interrupted {
            // Requested before this daemon's clock began: a negative time on it.
            var requested = 0.0
            if let usec = launch.requestedBoottimeMicroseconds, let origin { requested = min(0, Double(usec - origin) / 1_000_000) }
            coordinator.recordEnded(LaunchID(launch.id), route: launch.route, destination: launch.destination, state: .failed,
                                    reason: Self.restartReason, requestedAt: requested, endedAt: 0)
            nextID = max(nextID, launch.id)
        }
        self.onLaunches = onLaunches
        grid = FrameGrid(fps: fps)
        self.broadcaster = broadcaster
        self.supervisor = supervisor
        self.logger = logger
        self.onStatus = onStatus
        // One consumer, so app work happens in the coordinator's order across launches too: a
        // retarget is handed to the supervisor only after the start it follows.
        let (work, queue) = AsyncStream.makeStream(of: AppWork.self)
        appQueue = queue
        Task { [supervisor] in for await job in work { await job(supervisor) } }
    }

    typealias AppWork = @Sendable (any AppSupervisor) async -> Void
    private let appQueue: AsyncStream<AppWork>.Continuation
    deinit { appQueue.finish() }

    /// The daemon clock's zero as CLOCK_BOOTTIME microseconds, when it runs on the continuous
    /// clock: clients add it to an event's time to compare with their own clock.
    nonisolated let clockOriginMicroseconds: Int64?

    private static func boottimeMicroseconds(at instant: C.Instant) -> Int64? {
        guard let instant = instant as? ContinuousClock.Instant else { return nil }
        // Swift's ContinuousClock is CLOCK_BOOTTIME on Linux; read both back to back.
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let since = instant.duration(to: .now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
            - since.components.seconds * 1_000_000 - since.components.attoseconds / 1_000_000_000_000
    }

    /// Seconds of daemon time.
    func now() -> Double {
        let elapsed = epoch.duration(to: clock.now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    var display: String { coordinator.display }

    /// Answers when the actor is free: the watchdog's proof that the frame clock's owner runs.
    func heartbeat() {}
    var fps: Double { grid.fps }

    // MARK: - The loop

    /// Runs until cancelled: sleeps until the next deadline or frame, then catches up.
    func run() async {
        publishStatus()
        while !Task.isCancelled {
            let wake = nextWake()
            let clock = self.clock
            let deadline = epoch.advanced(by: .seconds(wake ?? 86_400 * 365))
            let sleeper = Task { _ = try? await clock.sleep(until: deadline, tolerance: nil) }
            self.sleeper = sleeper
            await withTaskCancellationHandler { await sleeper.value } onCancel: { sleeper.cancel() }
            tick()
        }
    }

    /// Input arrived: the loop recomputes when to wake.
    private func poke() { sleeper?.cancel() }

    private func nextWake() -> Double? {
        var wake = coordinator.nextDeadline
        if let presentation = coordinator.presentation(at: coordinator.now), presentation.isMoving || !lastFrameWasStill || lastFrame == nil {
            let frame = grid.nextDeadline(after: lastFrame, from: coordinator.now)
            wake = min(wake ?? frame, frame)
        }
        return wake
    }

    private func tick() {
        let t = now()
        perform(coordinator.advance(to: t), at: t)
        emitFrame(at: t)
    }

    /// The frame due at `t`, evaluated at its scheduled time; missed frames are skipped.
    private func emitFrame(at t: Double) {
        guard let index = grid.due(at: t, after: lastFrame) else { return }
        let time = grid.time(of: index)
        guard let presentation = coordinator.presentation(at: time) else { return }
        // A still overlay (holding, paused) is sent once, then not again until it moves.
        if !presentation.isMoving, lastFrameWasStill, lastFrame != nil { return }
        lastFrame = index
        lastFrameWasStill = !presentation.isMoving
        guard let timelines = presentation.transition == .appear ? overlay : compiled[presentation.launch] else { return }
        let timeline = presentation.transition == .appear ? timelines.appear : timelines.reveal
        let keys = presentation.transition == .appear ? timelines.appearKeys : timelines.revealKeys
        let length = presentation.transition == .appear ? timelines.appearLength : timelines.revealLength
        let frame = timeline.evaluate(at: presentation.time)
        broadcaster.publish(LaunchFrame(launch: presentation.launch, index: index, time: time, transition: presentation.transition,
                                        keys: keys, values: frame.values,
                                        progress: length > 0 ? min(1, max(0, presentation.time / length)) : 1))
    }

    // MARK: - Inputs

    enum LaunchOutcome: Sendable {
        case started(Launch), queued(Launch), merged(Launch)
    }

    /// Resolves and starts a launch. Throws for a bad route, a busy display, or when stopping.
    func launch(_ route: Route, policy: ConcurrencyPolicy?, configuration: Configuration) throws(LaunchError) -> (LaunchOutcome, display: String) {
        guard !stopped else { throw .shuttingDown }
        let resolution: RouteTable.Resolution
        do { resolution = try configuration.routes.resolve(route) } catch { throw .route(error) }
        let destination = resolution.destination
        let timelines: Compiled
        do { timelines = try Self.compile(configuration) } catch { throw .transitions("\(error)") }
        nextID += 1
        let id = LaunchID(nextID)
        func requirement(of app: String?) -> ReadinessStage {
            configuration.apps.first { $0.name == app }?.readiness ?? .ready
        }
        let request = LaunchRequest(id: id, route: route, destination: destination, requirement: requirement(of: destination.app),
                                    appearDuration: timelines.appearLength, revealDuration: timelines.revealLength,
                                    fallback: configuration.routes.fallback,
                                    fallbackRequirement: requirement(of: configuration.routes.fallback?.app), policy: policy,
                                    retain: configuration.transitions.retain,
                                    textVariant: Int.random(in: 0..<configuration.transitions.textVariants))
        let t = now()
        statistics.requested += 1
        compiled[id] = timelines
        destinations[id] = destination
        coordinator.settings = configuration.daemon.launchSettings
        let (decision, effects) = coordinator.request(request, at: t)
        perform(effects, at: t)
        poke()
        switch decision {
        case .started:
            statistics.started += 1
            return (.started(coordinator.launch(id)!), display)
        case .queued:
            statistics.queued += 1
            return (.queued(coordinator.launch(id)!), display)
        case .merged(let into):
            statistics.merged += 1
            forget(id)
            return (.merged(coordinator.launch(into)!), display)
        case .busy(let holder):
            statistics.busy += 1
            forget(id)
            throw .busy(holder: holder)
        }
    }

    func appReady(_ id: LaunchID, stage: ReadinessStage, status: String?, elements: [String: Hero.Frame] = [:]) throws(LaunchError) {
        guard let launch = coordinator.launch(id) else { throw .noSuchLaunch(id) }
        var revealDuration: Double?
        if !elements.isEmpty, launch.state != .revealing, let current = compiled[id] {
            do {
                let rebuilt = try Self.rebuild(current, elements: elements)
                compiled[id] = rebuilt
                revealDuration = rebuilt.revealLength
            } catch {
                // Elements the reveal cannot use (too many, say): the configured reveal stays.
                logger.warning("reported elements ignored", metadata: ["curtain_launch_id": "\(id)", "error": "\(error)"])
            }
        }
        let t = now()
        logger.log(.appReady, "app ready", ["curtain_launch_id": "\(id)", "curtain_app": "\(launch.destination.app)",
                                            "curtain_stage": "\(stage.rawValue)",
                                            "curtain_duration_usec": "\(Int((t - launch.requestedAt) * 1_000_000))"])
        perform(coordinator.appReady(id, stage: stage, status: status, revealDuration: revealDuration, at: t), at: t)
        poke()
    }

    func appStatus(_ id: LaunchID, _ status: String) {
        coordinator.appStatus(id, status)
    }

    func extendHold(_ id: LaunchID, by seconds: Double) {
        let t = now()
        perform(coordinator.extendHold(id, by: seconds, at: t), at: t)
        poke()
    }

    func appFailed(_ id: LaunchID, reason: String) throws(LaunchError) {
        guard coordinator.launch(id) != nil else { throw .noSuchLaunch(id) }
        let t = now()
        perform(coordinator.appFailed(id, reason: reason, at: t), at: t)
        poke()
    }

    func control(_ id: LaunchID, _ action: ControlAction) throws(LaunchError) -> Launch {
        let t = now()
        do {
            perform(try coordinator.control(id, action, at: t), at: t)
        } catch {
            if case .noSuchLaunch = error { throw .noSuchLaunch(id) }
            throw .invalidControl(error.description)
        }
        poke()
        return coordinator.launch(id)!
    }

    func get(_ id: LaunchID) throws(LaunchError) -> Launch {
        guard let launch = coordinator.launch(id) else { throw .noSuchLaunch(id) }
        return launch
    }

    func list() -> [Launch] { coordinator.launches }

    func currentStatistics() -> (Statistics, observers: Int) { (statistics, broadcaster.count) }

    func statusLine() -> String { status }

    /// Shutdown: every launch ends cancelled with a final event, then observer streams end.
    func stop() {
        stopped = true
        let t = now()
        perform(coordinator.cancelAll("daemon stopping", at: t), at: t)
        broadcaster.closeAll()
        poke()
    }

    // MARK: - Effects

    private func perform(_ effects: [LaunchEffect], at t: Double) {
        // App work runs in the order the coordinator gave it (release the old app before
        // starting the new one), off the actor: spawning must not hold up frames.
        var appWork: [AppWork] = []
        defer { appWork.forEach { appQueue.yield($0) } }
        for effect in effects {
            switch effect {
            case .showOverlay(let id):
                overlay = compiled[id]
                lastFrame = nil
                lastFrameWasStill = false
            case .startApp(let id, let destination):
                if let previous = destinations[id], previous != destination {
                    destinations[id] = destination
                    let reason = coordinator.launch(id)?.reason ?? "destination changed"
                    broadcaster.publish(.destination(launch: id, destination, reason: reason, time: t))
                }
                let route = coordinator.launch(id)?.route ?? .normal(app: destination.app)
                appWork.append { supervisor in await supervisor.start(id, destination, route: route) }
            case .releaseApp(let id):
                appWork.append { supervisor in await supervisor.release(id) }
            case .retargetApp(let from, let to, let destination):
                let route = coordinator.launch(to)?.route ?? .normal(app: destination.app)
                appWork.append { supervisor in await supervisor.retarget(from: from, to: to, destination, route: route) }
            case .hideOverlay(let id, let retain):
                // The reveal's end state, exactly: it rarely falls on the grid, and with retain
                // the next owner of the screen starts from it.
                if retain, let timelines = compiled[id] {
                    let end = timelines.reveal.evaluate(at: timelines.revealLength)
                    let time = coordinator.launch(id)?.changedAt ?? t   // when the reveal ended
                    broadcaster.publish(LaunchFrame(launch: id, index: grid.frame(at: time), time: time, transition: .reveal,
                                                    keys: timelines.revealKeys, values: end.values, progress: 1, final: true))
                }
                lastFrame = nil
                lastFrameWasStill = false
            case .transition(let transition):
                record(transition)
            }
        }
        publishStatus()
        persistLaunches()
    }

    private func persistLaunches() {
        guard let onLaunches else { return }
        let inFlight = coordinator.launches.filter { !$0.state.isEnded }
        guard persisted?.ids != inFlight.map(\.id) || persisted?.lastID != nextID else { return }
        persisted = (inFlight.map(\.id), nextID)
        onLaunches(inFlight, nextID)
    }

    private func record(_ transition: LaunchTransition) {
        let id = transition.launch
        broadcaster.publish(.state(transition))
        let launch = coordinator.launch(id)
        var fields: Logger.Metadata = [
            "curtain_launch_id": "\(id)", "curtain_state": "\(transition.to.rawValue)", "curtain_reason": "\(transition.reason)",
        ]
        if let launch {
            fields["curtain_app"] = "\(launch.destination.app)"
            fields["curtain_route"] = "\(launch.route)"
            fields["curtain_duration_usec"] = "\(Int((transition.time - launch.requestedAt) * 1_000_000))"
        }
        switch (transition.from, transition.to) {
        case (nil, .requested): logger.log(.launchRequested, "launch requested", fields)
        case (.presenting, .holding): logger.log(.launchPresented, "overlay presented", fields)
        case (_, .revealed):
            logger.log(.launchRevealed, "launch revealed", fields)
            if let launch { statistics.revealed(after: transition.time - launch.requestedAt) }
        case (_, .failed):
            logger.log(.launchFailed, "launch failed: \(transition.reason)", fields)
            statistics.failed += 1
        case (_, .cancelled):
            logger.log(.launchCancelled, "launch cancelled: \(transition.reason)", fields)
            statistics.cancelled += 1
        default:
            logger.debug("launch \(transition.from?.rawValue ?? "-") → \(transition.to.rawValue)", metadata: fields)
        }
        if transition.to.isEnded {
            broadcaster.finish(launch: id)
            forget(id)
        }
    }

    private func forget(_ id: LaunchID) {
        if coordinator.current?.id != id { compiled[id] = nil }
        destinations[id] = nil
    }

    /// STATUS=: "idle", or "1 launch: shop holding", "2 launches: chat revealing, 1 queued".
    private func publishStatus() {
        let line: String
        if let current = coordinator.current {
            let queued = coordinator.queued.count
            let total = 1 + queued
            line = "\(total) launch\(total == 1 ? "" : "es"): \(current.destination.app) \(current.state.rawValue)"
                + (queued > 0 ? ", \(queued) queued" : "")
        } else {
            line = "idle"
        }
        guard line != status else { return }
        status = line
        onStatus(line)
    }

    // MARK: - Timelines

    static func compile(_ configuration: Configuration) throws -> Compiled {
        func parameters(_ document: TimelineDocument) -> [String: Double] {
            let declared = Set((document.parameters ?? []).map(\.name))
            let given = ["screen.width": configuration.display.width, "screen.height": configuration.display.height]
            return given.filter { declared.contains($0.key) }
        }
        let transitions = configuration.effectiveTransitions
        let appear = try Timeline(document: transitions.appear, parameters: parameters(transitions.appear))
        let reveal = try Timeline(document: transitions.reveal, parameters: parameters(transitions.reveal))
        return Compiled(appear: appear, reveal: reveal, appearKeys: appear.slots.map(\.key), revealKeys: reveal.slots.map(\.key),
                        appearLength: length(appear), revealLength: length(reveal), revealDocument: transitions.reveal, screen: (configuration.display.width, configuration.display.height))
    }

    /// The reveal rebuilt for the elements an app reported: `hero` pairs them with the
    /// splash's; any other reveal gets them as `element.ID.x|y|width|height` parameters (the
    /// centre and size) where it declares them — `logo-move` flies to `element.logo`.
    static func rebuild(_ compiled: Compiled, elements: [String: Hero.Frame]) throws -> Compiled {
        var result = compiled
        let document: TimelineDocument
        var given: [String: Double] = ["screen.width": compiled.screen.width, "screen.height": compiled.screen.height]
        if compiled.revealDocument.name == "hero" {
            document = Hero.document(from: Hero.defaultSplash(width: compiled.screen.width, height: compiled.screen.height), to: elements)
        } else {
            document = compiled.revealDocument
            for (id, frame) in elements {
                given["element.\(id).x"] = frame.x + frame.width / 2
                given["element.\(id).y"] = frame.y + frame.height / 2
                given["element.\(id).width"] = frame.width
                given["element.\(id).height"] = frame.height
            }
        }
        let declared = Set((document.parameters ?? []).map(\.name))
        result.reveal = try Timeline(document: document, parameters: given.filter { declared.contains($0.key) })
        result.revealKeys = result.reveal.slots.map(\.key)
        result.revealLength = length(result.reveal)
        return result
    }

    /// A transition's length for the coordinator: its duration, or — when something in it
    /// repeats for ever — the end of its last finite animation.
    static func length(_ timeline: Timeline) -> Double {
        let finite = timeline.tracks.map(\.animation.endTime).filter(\.isFinite)
        return timeline.duration.isFinite ? timeline.duration : (finite.max() ?? 0)
    }
}
