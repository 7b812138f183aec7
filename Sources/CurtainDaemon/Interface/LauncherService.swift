import CurtainConfig
import CurtainCore
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
}
