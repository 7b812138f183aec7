import CurtainConfig
import CurtainCore
import NIOCore
import NIOPosix
import Varlink

/// io.curtain.Launcher and io.curtain.App bound to a driver: decoding, authorization,
/// replies and the observer streams.
struct LauncherService<C: Clock>: Sendable where C.Duration == Duration {
    let driver: LaunchDriver<C>
    var supervisor: ProcessSupervisor?
    let state: SharedConfiguration
    let reloader: Reloader
    let version: String
    let started: ContinuousClock.Instant

    static var launcherText: String { String(decoding: PackageResources.io_curtain_Launcher_varlink, as: UTF8.self) }
    static var appText: String { String(decoding: PackageResources.io_curtain_App_varlink, as: UTF8.self) }

    /// Throws PermissionDenied of the interface the method belongs to (an app is answered in
    /// io.curtain.App's terms, which it knows; not in io.curtain.Launcher's).
    private func authorize(_ request: VarlinkService.Request, _ method: String, app: Bool = false) throws(VarlinkError)
    {
        let authorization = Authorization(controlGroup: state.current.daemon.controlGroup)
        guard authorization.mayControl(request.peer) else {
            throw app ? AppErrors.permissionDenied(method) : LauncherErrors.permissionDenied(method)
        }
    }

    private static func id(_ parameters: [String: JSONValue], _ key: String = "id") throws(VarlinkError) -> LaunchID {
        guard case .int(let value)? = parameters[key], value > 0 else { throw VarlinkError.invalidParameter(key) }
        return LaunchID(UInt64(value))
    }

    /// A driver call answered in io.curtain.Launcher's terms when the driver refuses it.
    private static func launcher<T>(_ body: () async throws(LaunchError) -> T) async throws(VarlinkError) -> T {
        do { return try await body() } catch { throw LauncherErrors.from(error) }
    }

    /// A driver call answered in io.curtain.App's terms when the driver refuses it.
    private static func app<T>(_ body: () async throws(LaunchError) -> T) async throws(VarlinkError) -> T {
        do { return try await body() } catch { throw AppErrors.from(error) }
    }

    func interfaces() -> [InterfaceBuilder] {
        var launcher = InterfaceBuilder(Self.launcherText)
        let driver = self.driver

        launcher.rawMethod("Ping") { _, reply in try await reply([:], false) }

        launcher.rawMethod("GetStatus") { [state, version, started] _, reply in
            let uptime = ContinuousClock.now - started
            var out: [String: JSONValue] = [
                "version": .string(version),
                "uptime_usec": .int(
                    uptime.components.seconds * 1_000_000 + uptime.components.attoseconds / 1_000_000_000_000
                ),
                "configuration": .string(state.current.summary),
                "status": .string(await driver.statusLine()),
            ]
            if let origin = driver.clockOriginMicroseconds { out["clock_origin_usec"] = .int(origin) }
            try await reply(out, false)
        }

        launcher.rawMethod("GetStatistics") { _, reply in
            let (s, observers) = await driver.currentStatistics()
            var out: [String: JSONValue] = [
                "requested": .int(Int64(s.requested)), "started": .int(Int64(s.started)),
                "queued": .int(Int64(s.queued)),
                "merged": .int(Int64(s.merged)), "busy": .int(Int64(s.busy)), "revealed": .int(Int64(s.revealed)),
                "failed": .int(Int64(s.failed)), "cancelled": .int(Int64(s.cancelled)),
                "observers": .int(Int64(observers)),
            ]
            if let p50 = s.quantile(0.5) { out["reveal_p50_usec"] = .int(Int64(p50 * 1_000_000)) }
            if let p95 = s.quantile(0.95) { out["reveal_p95_usec"] = .int(Int64(p95 * 1_000_000)) }
            try await reply(out, false)
        }

        launcher.rawMethod("Get") { request, reply in
            let id = try Self.id(request.call.parameters)
            let launch = try await Self.launcher { () async throws(LaunchError) in try await driver.get(id) }
            try await reply(["launch": Wire.launch(launch, display: await driver.display)], false)
        }

        launcher.rawMethod("GetScene") { request, reply in
            let id = try Self.id(request.call.parameters, "launch")
            let scene = try await Self.launcher { () async throws(LaunchError) in try await driver.scene(id) }
            guard let scene else {
                throw LauncherErrors.sceneUnavailable(
                    path: "",
                    reason: "launch \(id.value) was requested before the daemon restarted"
                )
            }
            guard let path = scene.scene.path else {
                throw LauncherErrors.sceneUnavailable(
                    path: scene.scene.name,
                    reason: "the shipped scene is not installed (set CURTAIN_SCENES or [transitions] scene)"
                )
            }
            let sha256: String
            do throws(SceneDigest.Unavailable) { sha256 = try SceneDigest.sha256(ofFile: path) } catch {
                throw LauncherErrors.sceneUnavailable(path: path, reason: error.reason)
            }
            try await reply(["scene": Wire.scene(scene, path: path, sha256: sha256)], false)
        }

        launcher.rawMethod("List") { _, reply in
            let display = await driver.display
            try await reply(["launches": .array(await driver.list().map { Wire.launch($0, display: display) })], false)
        }

        launcher.rawMethod("Resolve") { [state] request, reply in
            let route = try Wire.route(request.call.parameters["route"])
            let resolution: RouteTable.Resolution
            do throws(RouteError) { resolution = try state.current.routes.resolve(route) } catch {
                throw LauncherErrors.from(error)
            }
            let candidates: [JSONValue] = resolution.candidates.map { candidate in
                let verdict =
                    switch candidate.verdict {
                    case .won: "won"
                    case .lost(let to, let because): "lost to rule \(to + 1): \(because)"
                    case .noMatch(let why): "no match: \(why)"
                    }
                return .string("rule \(candidate.rule + 1) \(candidate.description): \(verdict)")
            }
            try await reply(
                ["destination": Wire.destination(resolution.destination), "candidates": .array(candidates)],
                false
            )
        }

        launcher.rawMethod("Reload") { [reloader] request, reply in
            try authorize(request, "Reload")
            let allowEmpty: Bool
            switch request.call.parameters["allow_empty"] {
            case nil, .null?: allowEmpty = false
            case .bool(let value)?: allowEmpty = value
            default: throw VarlinkError.invalidParameter("allow_empty")
            }
            switch await reloader.reload(allowEmpty: allowEmpty) {
            case .success(let configuration): try await reply(["configuration": .string(configuration.summary)], false)
            case .failure(let errors): throw LauncherErrors.reloadRefused(errors.errors.map(\.description))
            }
        }

        launcher.rawMethod("Control") { request, reply in
            try authorize(request, "Control")
            let p = request.call.parameters
            let id = try Self.id(p)
            let action: ControlAction
            switch p["action"] {
            case "seek"?:
                guard case let progress? = p["progress"]?.number, progress.isFinite,
                    WireLimits.progress.contains(progress)
                else {
                    throw VarlinkError.invalidParameter("progress")
                }
                action = .seek(progress)
            case "pause"?: action = .pause
            case "resume"?: action = .resume
            case "finish"?: action = .finish
            case "cancel"?: action = .cancel
            default: throw VarlinkError.invalidParameter("action")
            }
            let launch = try await Self.launcher { () async throws(LaunchError) in try await driver.control(id, action)
            }
            try await reply(["launch": Wire.launch(launch, display: await driver.display)], false)
        }

        launcher.rawMethod("Launch") { [state] request, reply in
            try authorize(request, "Launch")
            let p = request.call.parameters
            let route = try Wire.route(p["route"])
            var policy: ConcurrencyPolicy?
            if case .string(let name)? = p["policy"] { policy = ConcurrencyPolicy(rawValue: name) }
            // One snapshot for the whole launch: the driver and the supervisor read it.
            let snapshot = state.snapshot
            let configuration = snapshot.configuration
            // Subscribed before the launch exists, so not one of its events can be missed.
            let subscription =
                request.call.more
                ? driver.broadcaster.add(
                    .init(launch: nil, frames: p["frames"] == .bool(true)),
                    limit: configuration.daemon.observerQueue
                )
                : nil
            defer { if let subscription { driver.broadcaster.remove(subscription.id) } }
            let (outcome, display) = try await Self.launcher { () async throws(LaunchError) in
                try await driver.launch(route, policy: policy, snapshot: snapshot)
            }
            let (launch, decision): (Launch, String) =
                switch outcome {
                case .started(let l): (l, "started")
                case .queued(let l): (l, "queued")
                case .merged(let l): (l, "merged")
                }
            let first: [String: JSONValue] = [
                "launch": Wire.launch(launch, display: display), "decision": .string(decision),
            ]
            guard let subscription, !launch.state.isEnded else { return try await reply(first, false) }
            try await reply(first, true)
            // Each event's reply as its event left the launch, written by whoever publishes it
            // (the driver, on the frame clock's thread) where the transport gives the call its
            // socket, as a Watch's are: no task switch to the connection's event loop per
            // event (issue 18), the final reply included (the stream then ends without one).
            let output = await request.direct?.takeOver()
            if let output {
                subscription.mailbox.attach(
                    Self.launchSink(output, launch: launch.id, limit: configuration.daemon.observerQueue, reply: reply)
                    {
                        driver.published[launch.id].map { now in
                            ["launch": Wire.launch(now, display: display), "decision": .string(decision)]
                        }
                    }
                )
            }
            try await Self.stream(
                subscription.mailbox,
                only: launch.id,
                grace: configuration.daemon.observerGrace,
                request: request,
                stalled: { output?.waiting().map { $0 > .seconds(configuration.daemon.observerGrace) } ?? false }
            ) { event, last in
                // As its event left it (no hop to the driver's actor per event; issue 18).
                let now =
                    if let published = driver.published[launch.id] { published } else {
                        try await Self.launcher { () async throws(LaunchError) in try await driver.get(launch.id) }
                    }
                try await reply(
                    [
                        "launch": Wire.launch(now, display: display), "decision": .string(decision),
                        "event": .object(event),
                    ],
                    !last
                )
            }
        }

        launcher.rawMethod("Watch", options: .init(requiresMore: true)) { [state] request, reply in
            let p = request.call.parameters
            var only: LaunchID?
            if p["launch"] != nil, p["launch"] != .null { only = try Self.id(p, "launch") }
            var everyNth = 1
            if let fps = try Wire.watchFPS(p["fps"]) {
                // Both rates are bounded (fps by WireLimits.watchFPS, the display's by
                // daemon.frame_rate), so the ratio is small and finite.
                everyNth = max(1, Int((await driver.fps / fps).rounded(.down)))
            }
            let configuration = state.current
            let limit = configuration.daemon.observerQueue
            let subscription = driver.broadcaster.add(
                .init(launch: only?.value, frames: p["frames"] == .bool(true), everyNth: everyNth),
                limit: limit
            )
            defer { driver.broadcaster.remove(subscription.id) }
            // Where things stand now, so the observer starts in sync.
            let current = await driver.list().filter { only == nil ? !$0.state.isEnded : $0.id == only }
            if let only, current.isEmpty { throw LauncherErrors.noSuchLaunch(only.value) }
            for launch in current {
                let snapshot = Wire.stateEvent(
                    .init(launch: launch.id, from: nil, to: launch.state, reason: launch.reason, time: launch.changedAt)
                )
                let last = only != nil && launch.state.isEnded
                try await reply(["event": .object(snapshot)], !last)
                if last { return }
            }
            try await Self.watch(
                subscription.mailbox,
                only: only,
                limit: limit,
                grace: configuration.daemon.observerGrace,
                request: request,
                reply: reply
            )
        }

        var app = InterfaceBuilder(Self.appText)
        app.rawMethod("Ready") { request, reply in
            try authorize(request, "Ready", app: true)
            let p = request.call.parameters
            var stage = ReadinessStage.ready
            if case .string(let name)? = p["stage"], let parsed = ReadinessStage(rawValue: name) { stage = parsed }
            var status: String?
            if case .string(let text)? = p["status"] { status = text }
            let elements = try Wire.elements(p["elements"])
            let id = try Self.id(p, "launch")
            try await Self.app { () async throws(LaunchError) in
                try await driver.appReady(id, stage: stage, status: status, elements: elements)
            }
            try await reply([:], false)
        }
        app.rawMethod("Attach", options: .init(requiresMore: true)) { [state, supervisor] request, reply in
            try authorize(request, "Attach", app: true)
            guard case .string(let name)? = request.call.parameters["app"],
                state.current.apps.contains(where: { $0.name == name }),
                let supervisor
            else {
                throw VarlinkError("io.curtain.App.NoSuchApp", ["app": request.call.parameters["app"] ?? .null])
            }
            let (token, deliveries) = await supervisor.attach(name)
            do {
                try await reply([:], true)  // attached
                for await message in deliveries {
                    switch message {
                    case .delivery(let delivery, let delivered):
                        do {
                            try await reply(["delivery": Wire.delivery(delivery)], true)
                            delivered.resume(returning: true)
                        } catch {
                            delivered.resume(returning: false)
                            throw error
                        }
                    case .ended(let launch, let show):
                        try await reply(
                            [
                                "revealed": [
                                    "launch": .int(Int64(launch.value)), "show": .array(show.map { .string($0) }),
                                ]
                            ],
                            true
                        )
                    }
                }
            } catch {
                await supervisor.detach(name, token)
                throw error
            }
            await supervisor.detach(name, token)
            throw CancellationError()  // the daemon is stopping: a final ShuttingDown reply
        }
        app.rawMethod("Failed") { request, reply in
            try authorize(request, "Failed", app: true)
            let p = request.call.parameters
            guard case .string(let reason)? = p["reason"] else { throw VarlinkError.invalidParameter("reason") }
            let id = try Self.id(p, "launch")
            try await Self.app { () async throws(LaunchError) in try await driver.appFailed(id, reason: reason) }
            try await reply([:], false)
        }
        return [launcher, app]
    }

    /// A Watch's replies after its snapshot. Where the transport gives the call its socket,
    /// whoever publishes (the frame loop, the driver) writes each reply to it at once — no task
    /// switch per observer and frame; the stream then sends only what queued while it was busy
    /// and, for one launch, the final reply. Elsewhere the stream sends everything.
    static func watch(
        _ mailbox: ObserverMailbox,
        only: LaunchID?,
        limit: Int,
        grace: Double,
        request: VarlinkService.Request,
        reply: VarlinkService.Reply
    ) async throws {
        let output = await request.direct?.takeOver()
        if let output { mailbox.attach(sink(output, only: only, limit: limit, reply: reply)) }
        try await stream(
            mailbox,
            only: only,
            grace: grace,
            request: request,
            stalled: { output?.waiting().map { $0 > .seconds(grace) } ?? false },
            frame: { shared in try await reply(try shared.prepared(for: reply), true) },
            send: { event, last in try await reply(["event": .object(event)], !last) }
        )
    }

    /// Writes a Watch's items to its socket: frames replaceable (a stalled peer keeps only the
    /// newest waiting), events never dropped — past `limit` of them waiting, it is cut off.
    static func sink(
        _ output: VarlinkService.DirectOutput,
        only: LaunchID?,
        limit: Int,
        reply: VarlinkService.Reply
    ) -> ObserverMailbox.Sink {
        let method = SharedFrame.interned(reply.method)
        return { item, shared in
            switch item {
            case .frame(let frame):
                // A frame that fails to encode is skipped, as it always was.
                guard let message = try? frame.message(for: reply, method: method) else { return .taken }
                return output.write(message, true) ? .taken : .cutOff
            case .event(let event):
                if only != nil, event.endsLaunch {
                    guard let prepared = try? reply.prepare(["event": .object(Wire.event(event))]) else {
                        return .refused
                    }
                    return finish(output, reply, prepared)
                }
                guard let message = try? (shared ?? SharedEvent(event)).message(for: reply, method: method) else {
                    return .refused
                }
                return output.write(message, false) && output.queued() <= limit ? .taken : .cutOff
            }
        }
    }

    /// Writes `prepared` as the call's final reply (a sink's last item); `.refused` if the call
    /// has ended already, so the stream sends nothing either.
    private static func finish(
        _ output: VarlinkService.DirectOutput,
        _ reply: VarlinkService.Reply,
        _ prepared: VarlinkService.PreparedParameters
    ) -> ObserverMailbox.Delivery {
        guard let message = reply.final(prepared) else { return .refused }
        return output.write(message, false) ? .finished : .cutOff
    }

    /// Writes a Launch call's events to its socket: each reply `{launch, decision, event}`, the
    /// launch as `state` gives it now (nil: not published, so the stream sends it). Other
    /// launches' items are dropped, as the stream skips them; the launch's last event is the
    /// call's final reply (`Delivery.finished`). Past `limit` replies waiting, the caller is cut off.
    static func launchSink(
        _ output: VarlinkService.DirectOutput,
        launch: LaunchID,
        limit: Int,
        reply: VarlinkService.Reply,
        state: @escaping @Sendable () -> [String: JSONValue]?
    ) -> ObserverMailbox.Sink {
        { item, _ in
            let (event, frame): ([String: JSONValue], Bool)
            switch item {
            case .event(let e):
                guard e.launch == launch else { return .taken }
                (event, frame) = (Wire.event(e), false)
            case .frame(let shared):
                guard shared.frame.launch == launch else { return .taken }
                (event, frame) = (shared.event, true)
            }
            guard var parameters = state() else { return .refused }
            parameters["event"] = .object(event)
            guard let prepared = try? reply.prepare(parameters) else { return .refused }
            if case .event(let e) = item, e.endsLaunch { return finish(output, reply, prepared) }
            // A frame still waiting is replaced by the next (a stalled caller holds one).
            return output.write(prepared.message(continues: true), frame) && output.queued() <= limit ? .taken : .cutOff
        }
    }

    /// Writes an observer's mailbox out. Each reply must be taken within `grace` seconds, or
    /// the observer is disconnected with ObserverTooSlow (also when `stalled` says a reply its
    /// sink wrote waits that long); so is one whose mailbox overflowed.
    /// With `only`, the stream ends with that launch's final state event. `frame`, when
    /// given, sends frames (shared by every observer, so encoded once); otherwise `send` does,
    /// given the event's JSON (a frame's built once for all observers).
    static func stream(
        _ mailbox: ObserverMailbox,
        only: LaunchID?,
        grace: Double,
        request: VarlinkService.Request,
        stalled: @escaping @Sendable () -> Bool = { false },
        frame: (@Sendable (SharedFrame) async throws -> Void)? = nil,
        send: @escaping @Sendable ([String: JSONValue], Bool) async throws -> Void
    ) async throws {
        // One watchdog per stream, not one per reply (a task per frame per observer was the
        // largest cost at 1000 observers): it checks how long the reply in flight has taken.
        let inFlight = SendTimer()
        // An event loop's repeated timer, not a task in Task.sleep: cancelling a Task.sleep
        // leaves its timer (≈ 850 bytes) queued until the deadline, grace / 4 later — one per
        // Launch call with more, so a launch every 100 ms held ≈ 1 MiB per 150 s of grace
        // (issue 18's soak). NIO takes a cancelled timer out of its queue at once.
        let interval = TimeAmount.nanoseconds(Int64(grace / 4 * 1e9))  // the check interval
        let watchdog = MultiThreadedEventLoopGroup.singleton.any().scheduleRepeatedTask(
            initialDelay: interval,
            delay: interval
        ) { task in
            // A reply in flight from the stream, or one waiting on the socket it gave its sink.
            guard inFlight.sending(longerThan: grace) || stalled() else { return }
            task.cancel()
            Task { await request.disconnect(LauncherErrors.observerTooSlow(grace)) }
        }
        defer { watchdog.cancel() }
        // Cancelled when the observer hangs up: its mailbox closes and it is removed.
        while let item = await withTaskCancellationHandler(
            operation: { await mailbox.next() },
            onCancel: { mailbox.close() }
        ) {
            let launch =
                switch item {
                case .event(let e): e.launch
                case .frame(let shared): shared.frame.launch
                }
            if let only, launch != only { continue }
            var last = false
            if only != nil, case .event(let event) = item, event.endsLaunch { last = true }
            if last { mailbox.close() }  // nothing may be written by the sink after the final reply
            inFlight.start()
            switch item {
            case .frame(let shared):
                if let frame { try await frame(shared) } else { try await send(shared.event, last) }
            case .event(let event): try await send(Wire.event(event), last)
            }
            inFlight.stop()
            if last { return }
        }
        if mailbox.finished { return }  // the sink wrote the final reply
        if mailbox.overflowed {
            await request.disconnect(LauncherErrors.observerTooSlow(grace))
            return
        }
        // Closed without an end of its own: the daemon is stopping.
        throw CancellationError()
    }
}
