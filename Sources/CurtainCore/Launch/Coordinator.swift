/// One display's launches as a pure state machine: the launch that owns the overlay, the
/// queue behind it, and the history. Time is an argument of every input; the coordinator
/// sets no timers of its own but says when it next needs to be woken (`nextDeadline`), and
/// every transition is stamped with the exact time its cause happened.
///
/// A launch: requested → presenting (appear transition; the app starts loading at once, in
/// parallel) → holding → revealing (reveal transition) → revealed; or failed, or cancelled.
/// The reveal starts when the appear transition has finished, the app is ready at the stage
/// its route requires, and the minimum hold has passed; if the app is not ready by the
/// maximum hold (or fails first), the launch falls back or fails, as configured.
public struct Coordinator: Sendable {
    public let display: String
    public var settings: LaunchSettings
    var active: Active?
    var queue: [Queued] = []
    private var history: [Launch] = []
    /// The time of the latest input; time never runs backwards for a coordinator.
    public private(set) var now: Double = -.infinity

    enum Phase: Sendable {
        case presenting(InteractiveClock)
        case holding
        case revealing(InteractiveClock)
    }

    struct Active: Sendable {
        var launch: Launch
        var request: LaunchRequest
        var phase: Phase
        /// The overlay has been up since then; the minimum hold counts from here.
        var overlaySince: Double
        /// When the appear transition started (holding keeps showing its last frame).
        var appearStart: Double
        var giveUpAt: Double
        /// When the app first reached the required stage.
        var readyAt: Double?
        var fellBack = false
    }

    struct Queued: Sendable {
        var launch: Launch
        var request: LaunchRequest
    }

    public init(display: String = "default", settings: LaunchSettings = .init()) {
        self.display = display
        self.settings = settings
    }

    // MARK: - What anyone may read

    /// The launch that owns the overlay, if any.
    public var current: Launch? { active?.launch }

    /// Every launch known: the current one, the queued ones, then the ended ones (newest first).
    public var launches: [Launch] {
        (active.map { [$0.launch] } ?? []) + queue.map(\.launch) + history.reversed()
    }

    /// The launches not ended (the current one, then the queued ones): `launches` without
    /// the history, which the driver reads after every input (a copy of each of up to 64
    /// ended launches each time was a tenth of its thread's work per launch; issue 18).
    public var inFlight: [Launch] {
        ((active.map { [$0.launch] } ?? []) + queue.map(\.launch)).filter { !$0.state.isEnded }
    }

    /// The ids of every launch known (those of `launches`), without copying the launches.
    public var ids: Set<LaunchID> {
        var ids = Set(history.lazy.map(\.id))
        ids.formUnion(queue.lazy.map(\.launch.id))
        if let active { ids.insert(active.launch.id) }
        return ids
    }

    public func launch(_ id: LaunchID) -> Launch? {
        if let active, active.launch.id == id { return active.launch }
        return queue.first { $0.launch.id == id }?.launch ?? history.last { $0.id == id }
    }

    public var queued: [Launch] { queue.map(\.launch) }

    // MARK: - Inputs

    /// A new launch. The decision says whether it started, queued, merged or was refused.
    public mutating func request(_ request: LaunchRequest, at t: Double) -> (LaunchDecision, [LaunchEffect]) {
        let effects = advance(to: t)
        return self.request(request, at: t, policy: nil, effects)
    }

    private mutating func request(
        _ request: LaunchRequest,
        at t: Double,
        policy forced: ConcurrencyPolicy?,
        _ effects: [LaunchEffect]
    ) -> (LaunchDecision, [LaunchEffect]) {
        var effects = effects
        guard let current = active else {
            start(request, at: t, takingOver: nil, &effects)
            effects += advance(to: t)
            return (.started, effects)
        }
        if let same = duplicate(of: request.destination, at: t) { return (.merged(into: same), effects) }

        let revealing = if case .revealing = current.phase { true } else { false }
        let policy = forced ?? request.policy ?? (revealing ? settings.whileRevealing : settings.whileLoading)
        switch policy {
        case .ignore:
            return (.busy(current.launch.id), effects)
        case .queue:
            guard queue.count < settings.maximumQueued else { return (.busy(current.launch.id), effects) }
            let launch = Launch(
                id: request.id,
                route: request.route,
                destination: request.destination,
                state: .requested,
                reason: "queued behind launch \(current.launch.id)",
                requestedAt: t,
                changedAt: t,
                textVariant: request.textVariant
            )
            queue.append(Queued(launch: launch, request: request))
            effects.append(
                .transition(.init(launch: request.id, from: nil, to: .requested, reason: launch.reason, time: t))
            )
            return (.queued(behind: current.launch.id), effects)
        case .retarget where !revealing && !mayNoLongerRetarget(current, at: t):
            // The new launch inherits the overlay as it is: same phase, same appear transition,
            // same deadline. The same app is handed over, not stopped and started again.
            let sameApp = current.launch.destination.app == request.destination.app
            end(
                .cancelled,
                "retargeted to launch \(request.id)",
                at: t,
                releaseApp: !sameApp,
                hideOverlay: nil,
                dequeue: false,
                &effects
            )
            start(request, at: t, takingOver: current, keepingApp: sameApp, &effects)
        case .retarget where !revealing:
            // The overlay has been up for the maximum hold (or fell back): retargeting again
            // could keep it up for ever, so this launch waits its turn.
            return self.request(request, at: t, policy: .queue, effects)
        case .replace, .retarget:
            // A reveal already lifting cannot be retargeted without a flicker: start over.
            end(
                .cancelled,
                "replaced by launch \(request.id)",
                at: t,
                releaseApp: true,
                hideOverlay: false,
                dequeue: false,
                &effects
            )
            start(request, at: t, takingOver: nil, &effects)
        }
        effects += advance(to: t)
        return (.started, effects)
    }

    /// The app of launch `id` reports `stage` (READY=1 is `.ready`). Readiness that arrives
    /// before the overlay has finished appearing is remembered. `revealDuration` replaces the
    /// reveal's length when the reveal was rebuilt from what the app reported (its elements).
    public mutating func appReady(
        _ id: LaunchID,
        stage: ReadinessStage,
        status: String? = nil,
        revealDuration: Double? = nil,
        at t: Double
    ) -> [LaunchEffect] {
        var effects = advance(to: t)
        guard var current = active, current.launch.id == id else { return effects }
        if let revealDuration, current.launch.state != .revealing { current.request.revealDuration = revealDuration }
        current.launch.readiness = max(current.launch.readiness ?? stage, stage)
        if let status { current.launch.appStatus = status }
        if current.readyAt == nil, stage >= current.request.requirement {
            current.readyAt = t
            current.launch.readyAt = t
        }
        active = current
        effects += advance(to: t)
        return effects
    }

    /// EXTEND_TIMEOUT_USEC: the app of launch `id` needs `seconds` more from `t`; the maximum
    /// hold moves out (never in).
    public mutating func extendHold(_ id: LaunchID, by seconds: Double, at t: Double) -> [LaunchEffect] {
        var effects = advance(to: t)
        guard var current = active, current.launch.id == id, current.readyAt == nil else { return effects }
        current.giveUpAt = max(current.giveUpAt, t + seconds)
        active = current
        effects += advance(to: t)
        return effects
    }

    /// The app's STATUS= line, shown to observers.
    public mutating func appStatus(_ id: LaunchID, _ status: String) {
        guard var current = active, current.launch.id == id else { return }
        current.launch.appStatus = status
        active = current
    }

    /// The app of launch `id` failed or exited before it was ready.
    public mutating func appFailed(_ id: LaunchID, reason: String, at t: Double) -> [LaunchEffect] {
        var effects = advance(to: t)
        guard let current = active, current.launch.id == id, current.readyAt == nil else { return effects }
        giveUp(reason, at: t, &effects)
        effects += advance(to: t)
        return effects
    }

    /// Ends every launch at once — queued ones first, then the current one — as the daemon
    /// stops: each gets its final `cancelled` transition.
    public mutating func cancelAll(_ reason: String, at t: Double) -> [LaunchEffect] {
        var effects = advance(to: t)
        for queued in queue {
            var launch = queued.launch
            effects.append(
                .transition(.init(launch: launch.id, from: .requested, to: .cancelled, reason: reason, time: t))
            )
            launch.state = .cancelled
            launch.reason = reason
            launch.changedAt = t
            record(launch)
        }
        queue.removeAll()
        end(.cancelled, reason, at: t, releaseApp: true, hideOverlay: false, dequeue: false, &effects)
        return effects
    }

    /// When the coordinator must next be advanced, if anything is pending.
    public var nextDeadline: Double? { nextEvent()?.time }

    /// Processes everything due by `t`, in order, each at its own time.
    public mutating func advance(to t: Double) -> [LaunchEffect] {
        now = max(now, t)
        var effects: [LaunchEffect] = []
        while let event = nextEvent(), event.time <= t {
            fire(event, &effects)
        }
        return effects
    }

    // MARK: - The machine

    enum Due {
        case appearEnded(InteractiveClock.Phase)
        case reveal
        case revealEnded(InteractiveClock.Phase)
        case giveUp
    }

    private func nextEvent() -> (time: Double, due: Due)? {
        guard let current = active else { return nil }
        switch current.phase {
        case .presenting(let clock):
            let end = Self.end(of: clock, since: current.appearStart).map {
                (time: $0.time, due: Due.appearEnded($0.phase))
            }
            let giveUp = current.readyAt == nil ? (time: current.giveUpAt, due: Due.giveUp) : nil
            return [end, giveUp].compactMap { $0 }.min { $0.time < $1.time }
        case .holding:
            if let readyAt = current.readyAt {
                return (max(readyAt, current.overlaySince + settings.minimumHold, current.launch.changedAt), .reveal)
            }
            return (current.giveUpAt, .giveUp)
        case .revealing(let clock):
            return Self.end(of: clock, since: current.launch.changedAt).map { ($0.time, .revealEnded($0.phase)) }
        }
    }

    private static func end(
        of clock: InteractiveClock,
        since start: Double
    ) -> (time: Double, phase: InteractiveClock.Phase)? {
        if let scheduled = clock.scheduledEnd { return scheduled }
        if let ended = clock.hasEnded(at: start) { return (start, ended) }  // zero length, or ended by a control
        return nil  // paused
    }

    private mutating func fire(_ event: (time: Double, due: Due), _ effects: inout [LaunchEffect]) {
        let t = event.time
        switch event.due {
        case .appearEnded(.cancelled):
            end(
                .cancelled,
                "appear transition cancelled",
                at: t,
                releaseApp: true,
                hideOverlay: false,
                dequeue: true,
                &effects
            )
        case .appearEnded:
            move(to: .holding, .holding, "appear transition finished", at: t, &effects)
        case .reveal:
            guard let current = active else { return }
            let stage = current.launch.readiness ?? current.request.requirement
            let reason =
                current.readyAt! >= current.overlaySince + settings.minimumHold
                ? "app ready (\(stage.rawValue))" : "app ready (\(stage.rawValue)), minimum hold over"
            move(
                to: .revealing,
                .revealing(InteractiveClock(duration: current.request.revealDuration, startingAt: t)),
                reason,
                at: t,
                &effects
            )
        case .revealEnded(.cancelled):
            end(
                .cancelled,
                "reveal transition cancelled",
                at: t,
                releaseApp: true,
                hideOverlay: false,
                dequeue: true,
                &effects
            )
        case .revealEnded:
            end(
                .revealed,
                "reveal transition finished",
                at: t,
                releaseApp: false,
                hideOverlay: active?.request.retain ?? true,
                dequeue: true,
                &effects
            )
        case .giveUp:
            guard let current = active else { return }
            giveUp("not ready within \(Self.seconds(settings.maximumHold)) s", at: current.giveUpAt, &effects)
        }
    }

    /// No readiness in time, or the app failed: fall back once, or fail.
    private mutating func giveUp(_ cause: String, at t: Double, _ effects: inout [LaunchEffect]) {
        guard var current = active else { return }
        if settings.onTimeout == .fallback, !current.fellBack, let fallback = current.request.fallback,
            fallback != current.launch.destination
        {
            current.fellBack = true
            current.launch.destination = fallback
            current.launch.readiness = nil
            current.launch.appStatus = nil
            current.readyAt = nil
            current.launch.readyAt = nil
            current.giveUpAt = t + settings.maximumHold
            current.request.requirement = current.request.fallbackRequirement
            current.launch.reason = "\(cause); falling back to \(fallback.app)/\(fallback.screen)"
            active = current
            effects.append(.releaseApp(current.launch.id))
            effects.append(.startApp(current.launch.id, fallback))
            effects.append(
                .transition(
                    .init(
                        launch: current.launch.id,
                        from: current.launch.state,
                        to: current.launch.state,
                        reason: current.launch.reason,
                        time: t
                    )
                )
            )
            return
        }
        end(.failed, cause, at: t, releaseApp: true, hideOverlay: false, dequeue: true, &effects)
    }

    /// Whether a retarget would extend an overlay that has already had its maximum hold: the
    /// deadline counts from when the overlay went up, so a stream of launches cannot hold it
    /// up for ever; once it has passed (the launch fell back), later launches queue.
    private func mayNoLongerRetarget(_ current: Active, at t: Double) -> Bool {
        current.fellBack || t >= current.giveUpAt
    }

    private mutating func start(
        _ request: LaunchRequest,
        at t: Double,
        takingOver previous: Active?,
        keepingApp: Bool = false,
        queuedAt: Double? = nil,
        _ effects: inout [LaunchEffect]
    ) {
        var launch = Launch(
            id: request.id,
            route: request.route,
            destination: request.destination,
            state: .requested,
            reason: "requested: \(request.route)",
            requestedAt: queuedAt ?? t,
            changedAt: t,
            textVariant: request.textVariant
        )
        if queuedAt == nil {
            effects.append(
                .transition(.init(launch: request.id, from: nil, to: .requested, reason: launch.reason, time: t))
            )
        }
        let phase: Phase
        let reason: String
        if let previous {
            phase = previous.phase
            reason = "took over the overlay from launch \(previous.launch.id)"
        } else {
            phase = .presenting(InteractiveClock(duration: request.appearDuration, startingAt: t))
            reason = "overlay up"
            effects.append(.showOverlay(request.id))
        }
        if keepingApp, let previous {
            effects.append(.retargetApp(from: previous.launch.id, to: request.id, request.destination))
        } else {
            effects.append(.startApp(request.id, request.destination))
        }
        let state: LaunchState =
            switch phase {
            case .presenting: .presenting
            case .holding: .holding
            case .revealing: .revealing
            }
        effects.append(.transition(.init(launch: request.id, from: .requested, to: state, reason: reason, time: t)))
        launch.state = state
        launch.reason = reason
        active = Active(
            launch: launch,
            request: request,
            phase: phase,
            overlaySince: previous?.overlaySince ?? t,
            appearStart: previous?.appearStart ?? t,
            giveUpAt: previous?.giveUpAt ?? t + settings.maximumHold
        )
    }

    private mutating func move(
        to state: LaunchState,
        _ phase: Phase,
        _ reason: String,
        at t: Double,
        _ effects: inout [LaunchEffect]
    ) {
        guard var current = active else { return }
        effects.append(
            .transition(
                .init(launch: current.launch.id, from: current.launch.state, to: state, reason: reason, time: t)
            )
        )
        current.launch.state = state
        current.launch.reason = reason
        current.launch.changedAt = t
        current.phase = phase
        active = current
    }

    /// Ends the current launch; the next queued one (if `dequeue`) takes the overlay.
    private mutating func end(
        _ state: LaunchState,
        _ reason: String,
        at t: Double,
        releaseApp: Bool,
        hideOverlay retain: Bool?,
        dequeue: Bool,
        _ effects: inout [LaunchEffect]
    ) {
        guard var current = active else { return }
        // The overlay's last word comes before the final transition, which ends streams.
        if releaseApp { effects.append(.releaseApp(current.launch.id)) }
        if let retain { effects.append(.hideOverlay(current.launch.id, retain: retain)) }
        effects.append(
            .transition(
                .init(launch: current.launch.id, from: current.launch.state, to: state, reason: reason, time: t)
            )
        )
        current.launch.state = state
        current.launch.reason = reason
        current.launch.changedAt = t
        record(current.launch)
        active = nil
        if dequeue, !queue.isEmpty {
            let next = queue.removeFirst()
            start(next.request, at: t, takingOver: nil, queuedAt: next.launch.requestedAt, &effects)
        }
    }

    /// Ends the current launch as cancelled at once (overlay down, app released).
    mutating func cancelCurrent(_ reason: String, at t: Double, _ effects: inout [LaunchEffect]) {
        end(.cancelled, reason, at: t, releaseApp: true, hideOverlay: false, dequeue: true, &effects)
    }

    mutating func record(_ launch: Launch) {
        history.append(launch)
        if history.count > settings.history { history.removeFirst(history.count - settings.history) }
    }

    private func duplicate(of destination: Destination, at t: Double) -> LaunchID? {
        let inFlight = (active.map { [$0.launch] } ?? []) + queue.map(\.launch)
        return inFlight.first { $0.destination == destination && t - $0.requestedAt <= settings.duplicateWindow }?.id
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
