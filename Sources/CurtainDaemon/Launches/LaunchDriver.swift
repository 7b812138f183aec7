import CurtainConfig
import CurtainCore
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs one display's `Coordinator` in time: feeds it inputs stamped with the clock, carries
/// out its effects (app supervision, observers, the journal, STATUS=), and drives the frame
/// clock — one loop that sleeps until the coordinator's next deadline or the next frame,
/// whichever is first. The clock is a parameter: tests run the whole driver on a manual one.
actor LaunchDriver<C: Clock> where C.Duration == Duration {
    private var coordinator: Coordinator
    private let clock: C
    private let epoch: C.Instant
    private var frames: FrameSchedule
    let broadcaster: Broadcaster
    /// Each launch as observers last heard of it (for Launch calls' replies).
    nonisolated let published = PublishedLaunches()
    private let supervisor: any AppSupervisor
    private let logger: Logger
    private var recorder: LaunchRecorder
    private let onStatus: @Sendable (String) -> Void

    private var nextID: UInt64 = 0
    /// Each launch's transitions, from the configuration snapshot it was requested with
    /// (its reveal rebuilt once its app reports elements).
    private var compiled: [LaunchID: CompiledTransitions] = [:] { didSet { ahead = nil } }
    /// The appear transition on screen (kept when a launch takes over the overlay).
    private var overlay: CompiledTransitions? { didSet { ahead = nil } }
    /// The next frame, made before its deadline (`prepareFrame`), with what it shows; sent
    /// at the deadline only if the frame due then is the same one showing the same thing.
    /// Dropped when the transitions it came from change.
    private var ahead: MadeFrame?

    private struct MadeFrame {
        let index: Int
        let presentation: Presentation
        let frame: SharedFrame

        func shows(_ index: Int, _ presentation: Presentation) -> Bool {
            self.index == index && self.presentation == presentation
        }
    }
    private var destinations: [LaunchID: Destination] = [:]
    /// The configuration each launch in flight was requested with: its app is started from
    /// the same one, whatever a reload did meanwhile.
    private var snapshots: [LaunchID: ConfigurationSnapshot] = [:]
    /// Each launch's scene (GetScene), kept while the coordinator remembers the launch.
    private var scenes: [LaunchID: LaunchScene] = [:]
    private var status = ""
    /// How the loop's current wait ends early (an input arrived).
    private var wakeup: Wakeup?
    private var stopped = false

    /// The driver runs on its frame clock's thread (on a shared one for other clocks): the
    /// timer's expiry resumes the loop right there, and the frame is evaluated and written to
    /// the observers' sockets before the thread waits again — no hop through the pool.
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        ((clock as? FrameClock) ?? FrameClock.shared).asUnownedSerialExecutor()
    }

    /// Told the launches in flight and the last id given whenever either changes (the state
    /// file a restarted daemon reads).
    private let onLaunches: (@Sendable (_ inFlight: [Launch], _ lastID: UInt64) -> Void)?
    private var persisted: (ids: [LaunchID], lastID: UInt64)?
    static var restartReason: String { "daemon restarted" }

    /// `firstID`: ids continue where a previous daemon stopped. `interrupted`: the launches it
    /// had in flight when it died, put in the history as failed ("daemon restarted").
    init(
        display: String = "default",
        settings: LaunchSettings,
        fps: Double,
        clock: C,
        broadcaster: Broadcaster,
        supervisor: any AppSupervisor = ExternalApps(),
        logger: Logger,
        onStatus: @escaping @Sendable (String) -> Void = { _ in },
        firstID: UInt64 = 1,
        interrupted: [RuntimeState.RecordedLaunch] = [],
        onLaunches: (@Sendable (_ inFlight: [Launch], _ lastID: UInt64) -> Void)? = nil
    ) {
        coordinator = Coordinator(display: display, settings: settings)
        self.clock = clock
        epoch = clock.now
        let origin = Self.boottimeMicroseconds(at: epoch)
        clockOriginMicroseconds = origin
        nextID = max(firstID, 1) - 1
        for launch in interrupted {
            // Requested before this daemon's clock began: a negative time on it.
            var requested = 0.0
            if let usec = launch.requestedBoottimeMicroseconds, let origin {
                requested = min(0, Double(usec - origin) / 1_000_000)
            }
            coordinator.recordEnded(
                LaunchID(launch.id),
                route: launch.route,
                destination: launch.destination,
                state: .failed,
                reason: Self.restartReason,
                requestedAt: requested,
                endedAt: 0
            )
            nextID = max(nextID, launch.id)
        }
        self.onLaunches = onLaunches
        frames = FrameSchedule(fps: fps)
        recorder = LaunchRecorder(logger: logger)
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
    var fps: Double { frames.grid.fps }

    // MARK: - The loop

    /// Runs until stopped (`stop`) or cancelled: sleeps until the next deadline or frame, then
    /// catches up; takes the app backend's events meanwhile.
    func run() async {
        // The backends hand their events to the inbox on their own thread; the loop's wait
        // ends and applies them here, on the driver's executor (the frame clock's thread) —
        // no stream, consumer task or pool thread in between.
        let inbox = self.inbox
        supervisor.relayEvents { inbox.post($0) }
        guard let frameClock = clock as? FrameClock else { return await loop() }
        // A continuation resumes on the concurrency pool and hops to the actor from there,
        // whoever resumes it: the loop's wait, ended by an alarm on the frame clock's own
        // thread, woke a pool thread that woke the frame clock's thread again — every frame,
        // and every app event (perf sched, issue 18). With the clock as the task's executor
        // the resumption runs on the clock's thread, where the hop to the actor costs nothing.
        await withTaskExecutorPreference(frameClock) { await self.loop() }
    }

    /// App events waiting for the loop, and the loop's current wait (ended by a post).
    private let inbox = Inbox()

    private final class Inbox: Sendable {
        private let state = Mutex<(events: [AppEvent], wakeup: Wakeup?)>(([], nil))

        func post(_ event: AppEvent) {
            state.withLock { s in
                s.events.append(event)
                return s.wakeup
            }?.fire()
        }

        /// The loop waits on `wakeup` now; true if events wait already.
        func waiting(on wakeup: Wakeup) -> Bool {
            state.withLock { s in
                s.wakeup = wakeup
                return !s.events.isEmpty
            }
        }

        func take() -> [AppEvent] {
            state.withLock { s in
                defer { s.events = [] }
                return s.events
            }
        }
    }

    /// An app backend's event. One about a launch that has ended meanwhile changes nothing
    /// (an app exiting after its launch was cancelled, say).
    func apply(_ event: AppEvent) {
        do throws(LaunchError) {
            switch event {
            case .ready(let id, let stage, let status, let elements):
                try appReady(id, stage: stage, status: status, elements: elements)
            case .status(let id, let status): appStatus(id, status)
            case .extend(let id, let seconds): extendHold(id, by: seconds)
            case .failed(let id, let reason): try appFailed(id, reason: reason)
            // The events before it have been applied and sent: `revealing` is out before the
            // app wakes (issue 18).
            case .barrier(_, let barrier): barrier.answer()
            }
        } catch {
            logger.debug("app event ignored: \(error)", metadata: ["curtain_launch_id": "\(event.launch)"])
        }
    }

    private func loop() async {
        publishStatus()
        while !Task.isCancelled, !stopped {
            let frame = nextFrameDeadline
            prepareFrame(due: frame)
            let wake = nextWake(frame: frame)
            let clock = self.clock
            let deadline = epoch.advanced(by: .seconds(wake ?? 86_400 * 365))
            let wakeup = Wakeup()
            self.wakeup = wakeup
            if inbox.waiting(on: wakeup) { wakeup.fire() }
            let disarm: () -> Void
            if let frameClock = clock as? FrameClock, let at = deadline as? FrameClock.Instant {
                // Fired on the clock's thread, which is this actor's: the loop resumes there.
                let alarm = frameClock.schedule(at: at) { wakeup.fire() }
                disarm = { frameClock.cancel(alarm) }
            } else {
                let sleeper = Task {
                    _ = try? await clock.sleep(until: deadline, tolerance: nil)
                    wakeup.fire()
                }
                disarm = { sleeper.cancel() }
            }
            // Resumed on the frame clock's thread when the loop's task prefers the clock as its
            // executor (`run`); otherwise through the pool.
            await withTaskCancellationHandler {
                await withCheckedContinuation { wakeup.park($0) }
            } onCancel: {
                wakeup.fire()
            }
            disarm()
            for event in inbox.take() { apply(event) }
            tick()
        }
    }

    /// Input arrived: the loop recomputes when to wake.
    private func poke() { wakeup?.fire() }

    /// One wait of the loop, ended once: by its deadline, an input or cancellation.
    private final class Wakeup: Sendable {
        private let state = Mutex<(fired: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        func fire() {
            state.withLock { s in
                defer {
                    s.fired = true
                    s.waiter = nil
                }
                return s.fired ? nil : s.waiter
            }?.resume()
        }

        func park(_ continuation: CheckedContinuation<Void, Never>) {
            let now = state.withLock { s in
                if s.fired { return true }
                s.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// When the next frame is due (nil: none is).
    private var nextFrameDeadline: Double? {
        frames.nextDeadline(showing: coordinator.presentation(at: coordinator.now), at: coordinator.now)
    }

    private func nextWake(frame: Double?) -> Double? {
        let deadline = coordinator.nextDeadline
        guard let frame else { return deadline }
        return min(deadline ?? frame, frame)
    }

    private func tick() {
        let t = now()
        // Most wakes are a frame's alone: nothing changed, so the status line and the state
        // file are not looked at again before the frame's writes.
        let effects = coordinator.advance(to: t)
        if !effects.isEmpty { perform(effects, at: t) }
        emitFrame(at: t)
    }

    /// The frame due at `t`, evaluated at its scheduled time; missed frames are skipped. The
    /// one made ahead is sent if it is that frame, showing the same thing.
    private func emitFrame(at t: Double) {
        let coordinator = self.coordinator
        // Never stamped before the transition showing began (the grid point just before a
        // launch's request is not one of its frames).
        let due = frames.take(
            at: t,
            notBefore: coordinator.current?.changedAt,
            presentation: { coordinator.presentation(at: $0) }
        )
        guard let (index, time, presentation) = due else { return }
        let made = ahead
        ahead = nil
        if let made, made.shows(index, presentation) { return broadcaster.publish(made.frame) }
        guard let frame = frame(index, time, presentation) else { return }
        broadcaster.publish(frame)
    }

    /// Makes the frame due at `deadline` now, once this wake's work is out: at it only the writes
    /// are left. Evaluating and encoding a frame took ≈ 80 µs of the frame clock's thread
    /// between the timer's expiry and the first observer's write (BENCHMARKS.md, "A frame
    /// made before its deadline"). Right away rather than on a wake-up of its own shortly
    /// before the deadline, which was 20 µs sooner at the observer and cost 40 % more CPU.
    /// Only for a frame someone watches.
    private func prepareFrame(due deadline: Double?) {
        let coordinator = self.coordinator
        guard
            let deadline,
            let (index, time, presentation) = frames.peek(
                at: max(deadline, coordinator.now),
                notBefore: coordinator.current?.changedAt,
                presentation: { coordinator.presentation(at: $0) }
            ),
            !(ahead?.shows(index, presentation) ?? false),
            broadcaster.watches(launch: presentation.launch, frame: index),
            let frame = frame(index, time, presentation)
        else { return }
        ahead = MadeFrame(index: index, presentation: presentation, frame: broadcaster.prepare(frame))
    }

    /// The frame made ahead, if any (tests).
    var preparedFrame: SharedFrame? { ahead?.frame }

    /// Frame `index`, at `time`, showing `presentation`; nil if its transitions are gone.
    private func frame(_ index: Int, _ time: Double, _ presentation: Presentation) -> LaunchFrame? {
        guard let transitions = presentation.transition == .appear ? overlay : compiled[presentation.launch] else {
            return nil
        }
        let shown = presentation.transition == .appear ? transitions.appear : transitions.reveal
        return LaunchFrame(
            launch: presentation.launch,
            index: index,
            time: time,
            transition: presentation.transition,
            keys: shown.keys,
            values: shown.timeline.evaluate(at: presentation.time).values,
            progress: shown.length > 0 ? min(1, max(0, presentation.time / shown.length)) : 1
        )
    }

    // MARK: - Inputs

    enum LaunchOutcome: Sendable {
        case started(Launch)
        case queued(Launch)
        case merged(Launch)
    }

    /// Resolves and starts a launch. Throws for a bad route, a busy display, or when stopping.
    /// Everything about the launch — routes, apps, transitions, settings — comes from
    /// `snapshot`, which its app is started from too.
    func launch(
        _ route: Route,
        policy: ConcurrencyPolicy?,
        snapshot: ConfigurationSnapshot
    ) throws(LaunchError) -> (LaunchOutcome, display: String) {
        guard !stopped else { throw .shuttingDown }
        let configuration = snapshot.configuration
        let resolution: RouteTable.Resolution
        do { resolution = try configuration.routes.resolve(route) } catch { throw .route(error) }
        let destination = resolution.destination
        let timelines: CompiledTransitions
        switch snapshot.transitions(forApp: destination.app) {
        case .success(let compiled): timelines = compiled
        case .failure(let error): throw .transitions("\(error)")
        }
        nextID += 1
        let id = LaunchID(nextID)
        func requirement(of app: String?) -> ReadinessStage { snapshot.app(named: app)?.readiness ?? .ready }
        let request = LaunchRequest(
            id: id,
            route: route,
            destination: destination,
            requirement: requirement(of: destination.app),
            appearDuration: timelines.appear.length,
            revealDuration: timelines.reveal.length,
            fallback: configuration.routes.fallback,
            fallbackRequirement: requirement(of: configuration.routes.fallback?.app),
            policy: policy,
            retain: configuration.transitions.retain,
            textVariant: Int.random(in: 0..<configuration.transitions.textVariants)
        )
        let t = now()
        recorder.requested()
        compiled[id] = timelines
        destinations[id] = destination
        snapshots[id] = snapshot
        let effective = configuration.effectiveTransitions
        scenes[id] = LaunchScene(
            scene: snapshot.scene,
            appear: effective.appear.name,
            reveal: effective.reveal.name,
            textVariant: request.textVariant,
            hidden: timelines.hiddenElements
        )
        coordinator.settings = configuration.daemon.launchSettings
        let (decision, effects) = coordinator.request(request, at: t)
        perform(effects, at: t)
        poke()
        recorder.decided(decision)
        switch decision {
        case .started:
            return (.started(coordinator.launch(id)!), display)
        case .queued:
            return (.queued(coordinator.launch(id)!), display)
        case .merged(let into):
            forget(id)
            scenes[id] = nil
            return (.merged(coordinator.launch(into)!), display)
        case .busy(let holder):
            forget(id)
            scenes[id] = nil
            throw .busy(holder: holder)
        }
    }

    func appReady(
        _ id: LaunchID,
        stage: ReadinessStage,
        status: String?,
        elements: [String: Hero.Element] = [:]
    ) throws(LaunchError) {
        guard let launch = coordinator.launch(id) else { throw .noSuchLaunch(id) }
        var revealDuration: Double?
        if !elements.isEmpty { scenes[id]?.elements = elements }
        if !elements.isEmpty, launch.state != .revealing, let current = compiled[id] {
            do {
                let rebuilt = try current.with(elements: elements)
                compiled[id] = rebuilt
                revealDuration = rebuilt.reveal.length
            } catch {
                // Elements the reveal cannot use (too many, say): the configured reveal stays.
                logger.warning(
                    "reported elements ignored",
                    metadata: ["curtain_launch_id": "\(id)", "error": "\(error)"]
                )
            }
        }
        let t = now()
        // Its line is written after the state events are out (a journal write is a syscall).
        perform(
            coordinator.appReady(id, stage: stage, status: status, revealDuration: revealDuration, at: t),
            at: t
        ) { [recorder] in recorder.appReady(launch, stage: stage, at: t) }
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

    /// The scene of a launch the coordinator knows; nil for one without a record (ended
    /// before a restart of the daemon).
    func scene(_ id: LaunchID) throws(LaunchError) -> LaunchScene? {
        guard coordinator.launch(id) != nil else { throw .noSuchLaunch(id) }
        return scenes[id]
    }

    func currentStatistics() -> (Statistics, observers: Int) { (recorder.statistics, broadcaster.count) }

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

    /// Carries out `effects` in order: state events, frames and app work go out first; the
    /// journal's lines (`note`'s, then the transitions'), STATUS= and the state file only once
    /// every observer has its events — they are syscalls, and they used to sit between a
    /// Launch or READY=1 and the observers' `presenting` or `revealing` (issue 18).
    private func perform(_ effects: [LaunchEffect], at t: Double, note: (() -> Void)? = nil) {
        // App work runs in the order the coordinator gave it (release the old app before
        // starting the new one), off the actor: spawning must not hold up frames.
        var appWork: [AppWork] = []
        var recorded: [(LaunchTransition, Launch?)] = []
        for effect in effects {
            switch effect {
            case .showOverlay(let id):
                overlay = compiled[id]
                frames.restart()
            case .startApp(let id, let destination):
                if let previous = destinations[id], previous != destination {
                    destinations[id] = destination
                    let reason = coordinator.launch(id)?.reason ?? "destination changed"
                    if let launch = coordinator.launch(id) { published.set(launch) }
                    broadcaster.publish(.destination(launch: id, destination, reason: reason, time: t))
                }
                let route = coordinator.launch(id)?.route ?? .normal(app: destination.app)
                guard let snapshot = snapshots[id] else { continue }  // every launch has one from its request
                appWork.append { supervisor in await supervisor.start(id, destination, route: route, snapshot: snapshot)
                }
            case .releaseApp(let id):
                appWork.append { supervisor in await supervisor.release(id) }
            case .retargetApp(let from, let to, let destination):
                let route = coordinator.launch(to)?.route ?? .normal(app: destination.app)
                guard let snapshot = snapshots[to] else { continue }
                appWork.append { supervisor in
                    await supervisor.retarget(from: from, to: to, destination, route: route, snapshot: snapshot)
                }
            case .hideOverlay(let id, let retain):
                // The reveal's end state, exactly: it rarely falls on the grid, and with retain
                // the next owner of the screen starts from it.
                if retain, let reveal = compiled[id]?.reveal {
                    let end = reveal.timeline.evaluate(at: reveal.length)
                    let time = coordinator.launch(id)?.changedAt ?? t  // when the reveal ended
                    broadcaster.publish(
                        LaunchFrame(
                            launch: id,
                            index: frames.grid.frame(at: time),
                            time: time,
                            transition: .reveal,
                            keys: reveal.keys,
                            values: end.values,
                            progress: 1,
                            final: true
                        )
                    )
                }
                frames.restart()
            case .transition(let transition):
                recorded.append((transition, coordinator.launch(transition.launch)))
                record(transition)
                if transition.to.isEnded {
                    let id = transition.launch
                    appWork.append { supervisor in await supervisor.ended(id) }
                }
            }
        }
        appWork.forEach { appQueue.yield($0) }
        note?()
        for (transition, launch) in recorded { recorder.record(transition, of: launch) }
        publishStatus()
        persistLaunches()
    }

    private func persistLaunches() {
        guard let onLaunches else { return }
        let inFlight = coordinator.inFlight
        guard persisted?.ids != inFlight.map(\.id) || persisted?.lastID != nextID else { return }
        persisted = (inFlight.map(\.id), nextID)
        onLaunches(inFlight, nextID)
    }

    private func record(_ transition: LaunchTransition) {
        let id = transition.launch
        if let launch = coordinator.launch(id) { published.set(launch) }
        broadcaster.publish(.state(transition))
        if transition.to.isEnded {
            broadcaster.finish(launch: id)
            forget(id)
            // Scenes and published launches the history has dropped go with them.
            let known = coordinator.ids
            // In place: most ends drop nothing, and a filtered copy was made every time.
            for stale in scenes.keys where !known.contains(stale) { scenes[stale] = nil }
            published.keep(only: known)
        }
    }

    private func forget(_ id: LaunchID) {
        if coordinator.current?.id != id { compiled[id] = nil }
        destinations[id] = nil
        snapshots[id] = nil
    }

    /// STATUS=: "idle", or "1 launch: shop holding", "2 launches: chat revealing, 1 queued".
    private func publishStatus() {
        let line: String
        if let current = coordinator.current {
            let queued = coordinator.queued.count
            let total = 1 + queued
            line =
                "\(total) launch\(total == 1 ? "" : "es"): \(current.destination.app) \(current.state.rawValue)"
                + (queued > 0 ? ", \(queued) queued" : "")
        } else {
            line = "idle"
        }
        guard line != status else { return }
        status = line
        onStatus(line)
    }
}
