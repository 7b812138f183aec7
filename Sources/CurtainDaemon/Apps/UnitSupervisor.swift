import CurtainConfig
import CurtainCore
import Logging
import Systemd

#if canImport(Glibc)
import Glibc
#endif

/// The unit backend: apps that are systemd units (`[[apps]] unit = …`), started, stopped and
/// watched through systemd's D-Bus API. Each app keeps its own sandbox, resources and restart
/// policy; curtaind only asks systemd (as the `curtain` user, allowed by the polkit rule
/// `make install` ships, for exactly the configured units — docs/units.md).
///
/// The destination reaches the app in two ways, neither through a shell nor through the
/// manager's global environment: a template's instance is the screen
/// (`shop@{screen}.service` → `shop@home.service`, `%i` in the unit), and the whole
/// destination is written, before each start, to `RUNTIME/units/UNIT.env`, which the unit
/// reads with `EnvironmentFile=-/run/curtain/units/%n.env` (systemd parses it at each start).
/// Readiness is the unit's own state (`UnitWatch`); finer stages come from the unit's
/// processes on curtaind's notify socket (`CURTAIN_NOTIFY_SOCKET` in the destination file),
/// attributed to the unit by the sender's pid through systemd (`claim`). A running unit's
/// warm start goes to its io.curtain.App.Attach stream as for spawned apps, or restarts it,
/// per the app's `warm`.
actor UnitSupervisor: AppSupervisor {
    struct Watched {
        var launch: LaunchID
        let app: String
        var watch: UnitWatch
        /// Started (or restarted) for this launch: a release stops it. A warm reveal-now
        /// launch did not start it and leaves it running.
        let started: Bool
        /// The elements its processes reported on curtaind's notify socket, for the reveal.
        var elements: ReportedElements = [:]
    }

    /// Where the destination files go: RUNTIME/units (RUNTIME is curtaind's runtime directory).
    static let environmentDirectory = "units"

    private let runtimeDirectory: String
    private let apiSocket: String?
    /// curtaind's notify socket, given to units as CURTAIN_NOTIFY_SOCKET for their stages.
    private let notifySocket: String?
    private let deliver: @Sendable (LaunchID, String, Route, Destination, [String]) async -> Bool
    private let logger: Logger
    private let publisher = AppEventPublisher()
    nonisolated var events: AsyncStream<AppEvent> { publisher.stream }
    nonisolated func relayEvents(to handler: @escaping @Sendable (AppEvent) -> Void) { publisher.relay(to: handler) }
    private var bus: SystemdBus?
    private var watched: [String: Watched] = [:]  // by unit name
    private var units: [LaunchID: String] = [:]
    private var paths: [String: String] = [:]  // object path → unit name
    private var stopped = false
    /// Which units the senders of notify messages run in (asked once per launch).
    private var senders = UnitSenders()
    /// Lines about refused or malformed messages, at most about one per sender per second.
    private var senderLog = ThrottledSenderLog()

    /// `deliver` hands a route, with the elements to hide until revealed, to an app attached
    /// through io.curtain.App (a warm start); whether one took it.
    init(
        runtimeDirectory: String,
        apiSocket: String?,
        notifySocket: String? = nil,
        logger: Logger,
        deliver: @escaping @Sendable (LaunchID, String, Route, Destination, [String]) async -> Bool
    ) {
        self.runtimeDirectory = runtimeDirectory
        self.apiSocket = apiSocket
        self.notifySocket = notifySocket
        self.logger = logger
        self.deliver = deliver
    }

    /// Stops listening to systemd (the units go on running: they are systemd's).
    func stop() {
        stopped = true
        bus?.stop()
        bus = nil
        publisher.finish()
    }

    /// The bus, connected on first use: a configuration without units never opens it.
    private func connection() throws -> SystemdBus {
        if let bus { return bus }
        let bus = try SystemdBus()
        self.bus = bus
        Task { await self.listen(bus) }
        return bus
    }

    private func listen(_ bus: SystemdBus) async {
        for await signal in bus.signals {
            switch signal {
            case .properties(let path, var update):
                guard let unit = paths[path], watched[unit]?.watch.outcome == nil else { continue }
                if ["failed", "inactive"].contains(update.activeState) || update.subState == "auto-restart" {
                    // The signal may not carry how the main process ended: read it.
                    if let fresh = try? await bus.state(unit) {
                        update.result = fresh.result
                        update.execMainCode = fresh.execMainCode
                        update.execMainStatus = fresh.execMainStatus
                    }
                }
                observe(unit, .properties(update))
            case .jobRemoved(let unit, let result):
                guard watched[unit]?.watch.outcome == nil else { continue }
                let fresh = (try? await bus.state(unit)) ?? UnitState()
                observe(unit, .startJobEnded(result: result, state: fresh))
            }
        }
        if self.bus === bus, !stopped {
            // systemd or the bus went away: launches still waiting cannot learn anything.
            self.bus = nil
            for (unit, entry) in watched where entry.watch.outcome == nil {
                watched[unit] = nil
                publisher.failed(entry.launch, "lost the connection to systemd while unit \(unit) was starting")
            }
        }
    }

    private func observe(_ unit: String, _ observation: UnitWatch.Observation) {
        guard var entry = watched[unit] else { return }
        let outcome = entry.watch.observe(observation)
        watched[unit] = entry
        switch outcome {
        case .ready?:
            logger.info(
                "unit \(unit) is active: app ready",
                metadata: [
                    "curtain_app": "\(entry.app)", "curtain_launch_id": "\(entry.launch)", "curtain_unit": "\(unit)",
                ]
            )
            publisher.ready(entry.launch, .ready, nil, entry.elements)
        case .failed(let reason)?:
            logger.log(
                .appExited,
                "\(reason)",
                ["curtain_app": "\(entry.app)", "curtain_launch_id": "\(entry.launch)", "curtain_unit": "\(unit)"]
            )
            publisher.failed(entry.launch, reason)
        case nil:
            break
        }
    }

    // MARK: - Notify messages from units

    /// A notify message on curtaind's socket that no spawned app sent: this backend's if its
    /// sender runs in a unit whose launch is still waiting for readiness (systemd says which,
    /// GetUnitByPID: curtaind's sandbox cannot read other users' /proc/PID/cgroup). Its stage,
    /// status, elements and extension then count for that launch, as a spawned app's do.
    /// Whether it was taken; a message not taken is the caller's to reject.
    func claim(_ datagram: NotifyReceiver.Datagram) async -> Bool {
        guard !stopped, let bus, datagram.pid > 0, watched.values.contains(where: { $0.watch.outcome == nil }) else {
            senders.reset()
            return false
        }
        let unit: String
        switch senders.lookup(datagram.pid) {
        case .unit(let known): unit = known
        case .stranger, .full: return false
        case .ask:
            let path = try? await bus.unitPath(ofPID: datagram.pid)
            let found = path.flatMap { paths[$0] }.flatMap { watched[$0]?.watch.outcome == nil ? $0 : nil }
            senders.record(datagram.pid, unit: found)
            guard let found else { return false }
            unit = found
        }
        guard var entry = watched[unit], entry.watch.outcome == nil else { return false }
        let now = ContinuousClock.now
        let fields: Logger.Metadata = ["curtain_app": "\(entry.app)", "curtain_unit": "\(unit)"]
        let message: NotifyMessage
        do { message = try datagram.message.get() } catch {
            senderLog.warning(logger, "notify message dropped: \(error)", pid: datagram.pid, metadata: fields, at: now)
            return true
        }
        let note = AppNotification(message)
        for refused in note.refused {
            senderLog.warning(logger, "\(refused)", pid: datagram.pid, metadata: fields, at: now)
        }
        if let elements = note.elements { entry.elements = elements }
        watched[unit] = entry
        note.events(for: entry.launch, elements: entry.elements).forEach(publisher.publish)
        // Answered by the driver once it has applied these (as the process backend's).
        if message.barrier, let barrier = datagram.barrier { publisher.publish(.barrier(entry.launch, barrier)) }
        return true
    }

    // MARK: - AppSupervisor

    func start(_ id: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async {
        guard !stopped else { return }
        guard let app = snapshot.app(named: destination.app), let template = app.unit else {
            return publisher.failed(id, "no unit app '\(destination.app)' in the configuration")
        }
        let unit: String
        do { unit = try template.name(screen: destination.screen) } catch { return publisher.failed(id, error.message) }
        let bus: SystemdBus
        do { bus = try connection() } catch { return publisher.failed(id, "app '\(app.name)': \(error)") }

        // Warm start: an attached app gets the route on its stream.
        if app.singleInstance, await deliver(id, app.name, route, destination, snapshot.hiddenElements) {
            units[id] = unit
            return
        }
        let current: UnitState
        do { current = try await bus.state(unit) } catch {
            return publisher.failed(id, "unit \(unit) of app '\(app.name)': \(error)")
        }
        let running = ["active", "reloading"].contains(current.activeState)
        if running, app.warm == .revealNow {
            // It is on screen already and cannot be told where to go: reveal at once.
            units[id] = unit
            watched[unit] = nil
            return publisher.ready(id, .ready, nil, [:])
        }
        do { try writeEnvironment(unit, id, destination, route: route, app: app.name) } catch {
            return publisher.failed(id, "unit \(unit): cannot write its destination file: \(error)")
        }
        await startUnit(unit, id, app: app.name, method: running ? "RestartUnit" : "StartUnit", bus: bus)
    }

    private func startUnit(_ unit: String, _ id: LaunchID, app: String, method: String, bus: SystemdBus) async {
        // Watched before the call, so no signal of the start goes unheard.
        if let previous = watched[unit], previous.launch != id, previous.watch.outcome == nil {
            publisher.failed(previous.launch, "unit \(unit) was started again for launch \(id)")
        }
        watched[unit] = Watched(launch: id, app: app, watch: UnitWatch(unit: unit), started: true)
        senders.forget(unit: unit)
        units[id] = unit
        if let path = SystemdBus.path(of: unit) { paths[path] = unit }
        logger.info(
            "\(method) \(unit)",
            metadata: ["curtain_app": "\(app)", "curtain_launch_id": "\(id)", "curtain_unit": "\(unit)"]
        )
        do { try await bus.job(method, unit) } catch {
            if watched[unit]?.launch == id { watched[unit] = nil }
            publisher.failed(id, "unit \(unit) could not be started: \(error)")
        }
    }

    func release(_ id: LaunchID) async {
        guard let unit = units.removeValue(forKey: id) else { return }
        guard let entry = watched[unit], entry.launch == id else { return }
        watched[unit] = nil
        senders.forget(unit: unit)
        guard entry.started, let bus else { return }
        logger.info(
            "app of launch \(id) released: StopUnit \(unit)",
            metadata: ["curtain_launch_id": "\(id)", "curtain_unit": "\(unit)"]
        )
        do { try await bus.job("StopUnit", unit) } catch {
            logger.warning(
                "unit \(unit) could not be stopped: \(error)",
                metadata: ["curtain_launch_id": "\(id)", "curtain_unit": "\(unit)"]
            )
        }
    }

    /// The same unit goes on loading for launch `to`; a different destination is delivered
    /// over io.curtain.App if the app is attached, else the unit is restarted with it (or,
    /// for a template whose instance changes, the other instance started).
    func retarget(
        from: LaunchID,
        to: LaunchID,
        _ destination: Destination,
        route: Route,
        snapshot: ConfigurationSnapshot
    ) async {
        guard let unit = units.removeValue(forKey: from), let app = snapshot.app(named: destination.app),
            let next = try? app.unit?.name(screen: destination.screen)
        else {
            return await start(to, destination, route: route, snapshot: snapshot)
        }
        guard next == unit, var entry = watched[unit], entry.launch == from else {
            units[from] = unit
            await release(from)
            return await start(to, destination, route: route, snapshot: snapshot)
        }
        entry.launch = to
        watched[unit] = entry
        units[to] = unit
        if await deliver(to, app.name, route, destination, snapshot.hiddenElements) { return }
        guard let bus else { return }
        do { try writeEnvironment(unit, to, destination, route: route, app: app.name) } catch {
            return publisher.failed(to, "unit \(unit): cannot write its destination file: \(error)")
        }
        await startUnit(unit, to, app: app.name, method: "RestartUnit", bus: bus)
    }

    // MARK: - The destination file

    static func environmentFile(runtime: String, unit: String) -> String {
        "\(runtime)/\(environmentDirectory)/\(unit).env"
    }

    /// Written whole, then renamed into place: systemd never reads half of one.
    private func writeEnvironment(
        _ unit: String,
        _ id: LaunchID,
        _ destination: Destination,
        route: Route,
        app: String
    ) throws {
        let directory = "\(runtimeDirectory)/\(Self.environmentDirectory)"
        if let code = POSIX.createDirectories(directory) {
            throw SystemdBus.Failure(description: "cannot create \(directory): \(POSIX.errorText(code))")
        }
        var variables = LaunchEnvironment.variables(
            launch: id,
            app: app,
            route: route,
            destination: destination,
            apiSocket: apiSocket
        )
        // Not NOTIFY_SOCKET: that stays systemd's, so READY=1 makes a Type=notify unit active.
        if let notifySocket { variables.append(("CURTAIN_NOTIFY_SOCKET", notifySocket)) }
        let path = Self.environmentFile(runtime: runtimeDirectory, unit: unit)
        let temporary = path + ".new"
        if let code = POSIX.writeFile(temporary, Array(UnitEnvironment.file(variables).utf8)) {
            throw SystemdBus.Failure(description: "cannot write \(temporary): \(POSIX.errorText(code))")
        }
        guard rename(temporary, path) == 0 else { throw SystemdBus.Failure(description: POSIX.errorText(errno)) }
    }
}
