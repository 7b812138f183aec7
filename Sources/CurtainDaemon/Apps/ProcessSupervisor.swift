import CNotify
import CurtainConfig
import CurtainCore
import Logging
import Systemd

#if canImport(Glibc)
import Glibc
#endif

/// Spawns each launch's app (`AppCommand`: posix_spawn) in a session of its own, with the destination
/// in its environment and argv and NOTIFY_SOCKET pointing at curtaind; takes its readiness
/// from that socket; tears down all of its processes when the launch no longer needs it —
/// its process group, its descendants, and those that left both (a `setsid` helper whose
/// parent exited is re-parented to curtaind, a child subreaper; see `ProcessTree`).
///
/// A notify message counts only when its sender (the kernel's SCM_CREDENTIALS pid) is in an
/// app's session: the app itself, or a helper it ran such as `systemd-notify`. Anything else
/// is offered to the unit backend, then rejected and logged. As systemd's manager dispatches a
/// message, attributes it and lets the unit interpret it, this actor does the IO and leaves
/// the decisions to pure types: whose message (`NotifyAttribution`), what it says for the
/// launch (`AppNotification`), whether an app may start again (`CrashLoopGuard`).
actor ProcessSupervisor: AppSupervisor {
    struct Instance {
        /// The launch it serves now (a retarget hands it to a later launch).
        var launch: LaunchID
        let app: String
        let pid: pid_t
        /// What it was started with or last told to show.
        var destination: Destination
        /// A retarget's destination it has not been told yet (it was not attached).
        var pending: (route: Route, destination: Destination, snapshot: ConfigurationSnapshot)?
        /// It has been told a later destination over io.curtain.App: its sd_notify stages
        /// speak of the one it started with, so readiness now comes from io.curtain.App.Ready.
        var redirected = false
        /// The launch it was started for (its exit is matched by this id).
        let spawnLaunch: LaunchID
        var released = false
        var ready = false
        var lastStatus: String?
        var lastErrno: Int32?
        var elements: [String: Hero.Element] = [:]
    }

    /// TERM to the process group, then KILL after this long.
    static let stopGrace: Duration = .seconds(2)
    /// Releases that came before their app was registered (a launch cancelled while its app
    /// is being spawned), remembered so the app is stopped the moment it registers; at most
    /// this many (the oldest are forgotten: their starts are long over).
    static let earlyReleaseLimit = 64

    private var instances: [pid_t: Instance] = [:]  // by session (= the app's pid)
    private var byLaunch: [LaunchID: pid_t] = [:]
    /// Releases that came before their app was spawned.
    private var releasedEarly: Set<LaunchID> = []
    private var stopping = false
    /// Apps that keep failing are not started again for a while.
    private var crashGuard = CrashLoopGuard()
    /// Which app a notify message is from; those from a session not known yet are held here.
    private var attribution = NotifyAttribution<NotifyReceiver.Datagram>()
    /// The pure types take time as a duration since this instant.
    private let epoch = ContinuousClock.now
    private func elapsed() -> Duration { ContinuousClock.now - epoch }
    /// The last notify message handled, and who waits for a later one (see `catchUp`).
    private var handledThrough: UInt64 = 0
    private var catchingUp: [(through: UInt64, waiter: CheckedContinuation<Void, Never>)] = []
    private var receiverEnded = false
    /// Lines about rejected or malformed notify messages, at most about one per sender per second.
    private var senderLog = ThrottledSenderLog()
    /// What happens to apps, for the driver (`AppSupervisor.events`).
    private let publisher = AppEventPublisher()
    nonisolated var events: AsyncStream<AppEvent> { publisher.stream }
    nonisolated func relayEvents(to handler: @escaping @Sendable (AppEvent) -> Void) { publisher.relay(to: handler) }
    /// Apps attached through io.curtain.App.Attach (warm starts).
    typealias Delivery = WarmStarts.Delivery
    private var warm = WarmStarts()
    private let receiver: NotifyReceiver
    /// Offered the messages no spawned app sent (the unit backend's `claim`): whether it took one.
    private var unitClaim: (@Sendable (NotifyReceiver.Datagram) async -> Bool)?
    private let logger: Logger
    /// The API socket, given to apps as CURTAIN_SOCKET (for io.curtain.App).
    private let apiSocket: String?
    /// Where every app process is recorded for a successor after a crash.
    private let runtime: RuntimeState?
    /// Whether exited children that are no app's main process are reaped here: only in a
    /// process whose every child is an app (curtaind, a child subreaper). A supervisor inside
    /// another program (a test) must never reap that program's own children.
    private let sweepsOrphans: Bool
    /// This process's environment as apps inherit it ("KEY=value\0"), read at the first spawn:
    /// curtaind's own does not change once it has started (socket activation's variables are
    /// gone by then), and reading it into a dictionary twice per spawn, as `.inherit` does, was
    /// ≈ 4 % of curtaind's CPU in scenario 6 of `make bench` (issue 18).
    private lazy var inherited: [[UInt8]] = POSIX.environmentEntries()

    init(
        notifySocket path: String,
        apiSocket: String?,
        runtime: RuntimeState? = nil,
        sweepsOrphans: Bool = false,
        logger: Logger
    ) throws {
        self.apiSocket = apiSocket
        self.runtime = runtime
        self.sweepsOrphans = sweepsOrphans
        receiver = try NotifyReceiver(path: path)
        self.logger = logger
    }

    var notifySocket: String { receiver.path }

    /// Messages no spawned app sent go to `claim` first (units' processes send stages here).
    func offerUnattributed(to claim: @escaping @Sendable (NotifyReceiver.Datagram) async -> Bool) {
        unitClaim = claim
    }

    /// Takes notify messages until the receiver stops, on the receiver's own thread (its task
    /// prefers the receiver as executor): a READY=1 is attributed where it was read and handed
    /// to the driver from there, with no pool thread in between (issue 18).
    func run() async {
        await withTaskExecutorPreference(receiver) { await self.takeDatagrams() }
    }

    private func takeDatagrams() async {
        while let datagram = await receiver.next() {
            await handle(datagram)
            handledThrough = datagram.sequence
            let due = catchingUp.filter { $0.through <= datagram.sequence }
            catchingUp.removeAll { $0.through <= datagram.sequence }
            due.forEach { $0.waiter.resume() }
        }
        catchingUp.forEach { $0.waiter.resume() }
        catchingUp = []
        receiverEnded = true
    }

    /// Returns once every notify message sent before this call has been handled (an app's
    /// READY=1 followed at once by its exit must count as ready).
    private func catchUp() async {
        // Asked of the socket first: a flush wakes the receiver's thread for nothing when all
        // was read already (as almost always by the time an exit is seen).
        let through: UInt64
        if let idle = receiver.readThroughIfIdle() { through = idle } else { through = await receiver.flush() }
        guard handledThrough < through, !receiverEnded else { return }
        await withCheckedContinuation { catchingUp.append((through, $0)) }
    }

    /// Shutdown: every process of every app gets SIGTERM, then SIGKILL when it has not
    /// exited after the grace period (under systemd, KillMode=control-group would do the
    /// same); then the notify socket closes, which ends `run`.
    func stop() async {
        stopping = true
        warm.finishAll()
        let groups = Array(instances.keys)
        var handles: [ProcessTree.Handle] = []
        let table = ProcessTree.snapshot()
        for pid in groups {
            guard let instance = instances[pid] else { continue }
            instances[pid]?.released = true
            handles += processes(of: instance, in: table)
            kill(-pid, SIGTERM)
        }
        await ProcessTree.stop(handles, grace: Self.stopGrace)
        for pid in groups { kill(-pid, SIGKILL) }
        receiver.stop()
        publisher.finish()
    }

    /// Handles on the processes of `instance`'s app now (its tree and its orphans).
    private func processes(
        of instance: Instance,
        in table: [pid_t: ProcessTree.Entry],
        includeMain: Bool = true
    ) -> [ProcessTree.Handle] {
        let others = Set(instances.keys).subtracting([instance.pid])
        let entries = ProcessTree.processes(
            launch: instance.launch.value,
            main: includeMain ? instance.pid : nil,
            exclude: others,
            in: table
        )
        runtime?.setProcesses(launch: instance.launch.value, app: instance.app, entries)
        return entries.compactMap { ProcessTree.Handle($0, reap: $0.pid != instance.pid) }
    }

    /// Stops what a crashed predecessor left: every recorded process still alive (same pid,
    /// same start time) and its descendants. Returns how many there were.
    static func stopLeftovers(_ recorded: [RuntimeState.RecordedProcess], grace: Duration = stopGrace) async -> Int {
        let table = ProcessTree.snapshot()
        let roots = Set(recorded.filter { table[$0.pid]?.startTime == $0.startTime }.map(\.pid))
        let handles = ProcessTree.descendants(of: roots, in: table).compactMap { ProcessTree.Handle($0, reap: true) }
        await ProcessTree.stop(handles, grace: grace)
        return handles.count
    }

    /// Reaps curtaind's exited children that are no app's main process: orphans re-parented
    /// here. An app's main process is registered as it is spawned and reaped by `ProcessExits`.
    private func reapOrphans() {
        guard sweepsOrphans, Self.hasExitedChild() else { return }
        let me = getpid()
        // Only the orphans re-parented here (to the main thread) can be such: read those, not
        // every process (issue 18; an app registered and exited, not yet reaped by
        // `ProcessExits`, made this scan the whole of /proc after most launches).
        let candidates =
            ProcessTree.adopted().map { $0.subtracting(instances.keys).compactMap(ProcessTree.entry) }
            ?? Array(ProcessTree.snapshot().values)
        for entry in candidates where entry.parent == me && entry.zombie && instances[entry.pid] == nil {
            var status: Int32 = 0
            _ = waitpid(entry.pid, &status, WNOHANG)
        }
    }

    /// Whether any child of this process has exited and waits to be reaped, asked without
    /// reaping it (WNOWAIT): after almost every app's exit there is none, and the /proc scan
    /// `reapOrphans` would make is skipped (a scan of every process was a large part of a
    /// launch's cost in `make bench` scenario 6; issue 18).
    static func hasExitedChild() -> Bool {
        var info = siginfo_t()
        guard waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return false }  // ECHILD: no children
        return info._sifields._sigchld.si_pid != 0
    }

    // MARK: - Starting and stopping apps

    func start(_ id: LaunchID, _ destination: Destination, route: Route, snapshot: ConfigurationSnapshot) async {
        // Released before it started (the release's task ran first): nothing to start.
        if releasedEarly.remove(id) != nil || stopping {
            return logger.info(
                "app of launch \(id) not started: the launch ended before its start",
                metadata: ["curtain_launch_id": "\(id)"]
            )
        }
        guard let app = snapshot.app(named: destination.app) else {
            return publisher.failed(id, "no app '\(destination.app)' in the configuration")
        }
        if let refusal = crashGuard.check(app.name, at: elapsed()) {
            return publisher.failed(id, refusal.description)
        }
        if app.singleInstance {
            // Warm start: an attached app gets the route on its stream.
            if await deliver(id, app.name, route, destination, hide: snapshot.hiddenElements) { return }
            if let running = instances.values.first(where: { $0.app == app.name && !$0.released }) {
                switch app.warm {
                case .revealNow:
                    // It is on screen already and cannot be told where to go: reveal at once.
                    return publisher.ready(id, .ready, nil, [:])
                case .restart:
                    teardown(running.pid)
                }
            }
        }
        if app.exec.isEmpty { return }  // started elsewhere; it reports through io.curtain.App
        let argv = app.arguments(for: destination)
        guard let program = argv.first, program.hasPrefix("/") else {
            return publisher.failed(id, "app '\(app.name)': exec must start with an absolute path")
        }
        var overrides: [(String, String)] = app.environment.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        overrides += LaunchEnvironment.variables(
            launch: id,
            app: app.name,
            route: route,
            destination: destination,
            apiSocket: apiSocket
        )
        overrides.append(("NOTIFY_SOCKET", receiver.path))
        let environment: [[UInt8]]
        switch AppCommand.environment(inherited, overriddenBy: overrides) {
        case .success(let entries): environment = entries
        case .failure(let refusal): return publisher.failed(id, "app '\(app.name)': \(refusal)")
        }
        let arguments: [[UInt8]]
        switch AppCommand.arguments(argv) {
        case .success(let bytes): arguments = bytes
        case .failure(let refusal): return publisher.failed(id, "app '\(app.name)': \(refusal)")
        }

        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return publisher.failed(id, "cannot create a pipe: \(POSIX.errorText(errno))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // Spawned here, on the actor: glibc's posix_spawn holds this thread only until the
        // child's execve (CLONE_VFORK), and the app is registered before anything else runs
        // here, so no task, stream or second thread stands between its start and its exit.
        let spawned = AppCommand.spawn(
            program,
            arguments,
            environment,
            directory: app.workingDirectory,
            output: ends[1]
        )
        close(ends[1])
        switch spawned {
        case .failure(let failure):
            close(ends[0])
            let error = "\(program): \(POSIX.errorText(failure.number))"
            logger.error(
                "cannot start app",
                metadata: ["curtain_app": "\(app.name)", "curtain_launch_id": "\(id)", "error": "\(error)"]
            )
            await failedToStart(id, app: app.name, error: error)
        case .success(let (pid, pidfd)):
            await register(Instance(launch: id, app: app.name, pid: pid, destination: destination, spawnLaunch: id))
            // Watched once registered (and any message that raced ahead handled): its exit is
            // taken only after that.
            let watched = ProcessExits.shared.watch(pid: pid, pidfd: pidfd) { [weak self] status in
                Task { await self?.exited(id, status: status) }
            }
            if !watched {
                logger.error(
                    "app's exit cannot be watched (no thread): its launch ends by its readiness or timeout only",
                    metadata: ["curtain_app": "\(app.name)", "curtain_launch_id": "\(id)", "curtain_app_pid": "\(pid)"]
                )
            }
            // Its output is read once it runs (the pipe holds it meanwhile), by the one thread
            // that reads every app's: its logger is not made between the launch and the exec.
            var appLogger = Logger(label: "app.\(app.name)") { JournalLogHandler(label: $0, identifier: app.name) }
            appLogger[metadataKey: "curtain_app"] = "\(app.name)"
            appLogger[metadataKey: "curtain_launch_id"] = "\(id)"
            AppOutput.forward(from: ends[0], logger: appLogger)
        }
    }

    /// io.curtain.App.Attach: deliveries for `app` until the stream ends. A destination a
    /// retarget left pending for a loading instance of the app goes out first.
    func attach(_ app: String) -> (token: Int, deliveries: AsyncStream<Delivery>) {
        let (token, stream) = warm.attach(app)
        logger.info("app attached for warm starts", metadata: ["curtain_app": "\(app)"])
        if let (pid, instance) = instances.first(where: {
            $0.value.app == app && $0.value.pending != nil && !$0.value.released
        }),
            let pending = instance.pending
        {
            instances[pid]?.pending = nil
            Task { await self.deliverPending(pid, launch: instance.launch, pending) }
        }
        return (token, stream)
    }

    /// Launch `to` takes over the instance launch `from` started: it goes on loading and its
    /// readiness counts for `to`. A different destination is delivered to it over
    /// io.curtain.App if it is attached, or as soon as it attaches; one that becomes ready
    /// without having attached is treated as a warm start (`warm`: restart or reveal-now).
    func retarget(
        from: LaunchID,
        to: LaunchID,
        _ destination: Destination,
        route: Route,
        snapshot: ConfigurationSnapshot
    ) async {
        guard let pid = byLaunch.removeValue(forKey: from), var instance = instances[pid], !instance.released else {
            return await start(to, destination, route: route, snapshot: snapshot)
        }
        byLaunch[to] = pid
        instance.launch = to
        instances[pid] = instance
        logger.info(
            "app handed over to a retargeted launch",
            metadata: [
                "curtain_app": "\(instance.app)", "curtain_launch_id": "\(to)", "curtain_app_pid": "\(pid)",
                "curtain_retargeted_from": "\(from)",
            ]
        )
        guard destination != instance.destination else { return }
        if await deliver(to, instance.app, route, destination, hide: snapshot.hiddenElements) {
            instances[pid]?.destination = destination
            instances[pid]?.redirected = true
            instances[pid]?.pending = nil
        } else {
            instances[pid]?.pending = (route, destination, snapshot)
        }
    }

    private func deliverPending(
        _ pid: pid_t,
        launch: LaunchID,
        _ pending: (route: Route, destination: Destination, snapshot: ConfigurationSnapshot)
    ) async {
        guard let instance = instances[pid], instance.launch == launch else { return }
        if await deliver(
            launch,
            instance.app,
            pending.route,
            pending.destination,
            hide: pending.snapshot.hiddenElements
        ) {
            instances[pid]?.destination = pending.destination
            instances[pid]?.redirected = true
        } else if instances[pid]?.launch == launch, instances[pid]?.pending == nil {
            instances[pid]?.pending = pending
        }
    }

    /// The route to `app`'s attached streams, newest first; whether one took it (also the
    /// unit backend's warm start).
    func deliver(
        _ id: LaunchID,
        _ app: String,
        _ route: Route,
        _ destination: Destination,
        hide: [String] = []
    ) async -> Bool {
        let delivery = AppDelivery(launch: id, route: route, destination: destination, hide: hide)
        for (token, stream) in warm.streams(of: app) {
            let delivered = await withCheckedContinuation { continuation in
                if case .terminated = stream.yield(.delivery(delivery, continuation)) {
                    continuation.resume(returning: false)
                }
            }
            if delivered {
                logger.info(
                    "route delivered to the attached app",
                    metadata: ["curtain_app": "\(app)", "curtain_launch_id": "\(id)"]
                )
                warm.delivered(id, app: app, token: token, hiding: hide)
                return true
            }
        }
        return false
    }

    func ended(_ id: LaunchID) { warm.ended(id) }

    func detach(_ app: String, _ token: Int) { warm.detach(app, token) }

    func release(_ id: LaunchID) async {
        guard let pid = byLaunch[id] else {
            // Its app may be spawning right now (or its start not begun): stopped once it
            // registers, never started.
            releasedEarly.insert(id)
            if releasedEarly.count > Self.earlyReleaseLimit, let oldest = releasedEarly.min() {
                releasedEarly.remove(oldest)
            }
            return
        }
        logger.info(
            "app of launch \(id) released: stopping all its processes",
            metadata: ["curtain_launch_id": "\(id)"]
        )
        instances[pid]?.released = true
        teardown(pid)
    }

    /// TERM to every process of the app — its group, its descendants, its orphans — and
    /// KILL to those left after the grace period: no grandchild survives, whatever session
    /// it made.
    private func teardown(_ pid: pid_t) {
        instances[pid]?.released = true
        guard let instance = instances[pid] else { return }
        let handles = processes(of: instance, in: ProcessTree.snapshot())
        kill(-pid, SIGTERM)
        Task {
            await ProcessTree.stop(handles, grace: Self.stopGrace)
            kill(-pid, SIGKILL)
            self.reapOrphans()
        }
    }

    private func register(_ instance: Instance) async {
        instances[instance.pid] = instance
        let waiting = attribution.register(instance.pid)
        byLaunch[instance.launch] = instance.pid
        if let entry = ProcessTree.entry(instance.pid) {
            runtime?.setProcesses(launch: instance.launch.value, app: instance.app, [entry])
        }
        if releasedEarly.remove(instance.launch) != nil || stopping {
            logger.info(
                "app of launch \(instance.launch) stopped at once: the launch ended while it was being started",
                metadata: ["curtain_app": "\(instance.app)", "curtain_launch_id": "\(instance.launch)"]
            )
            teardown(instance.pid)
            return
        }
        logger.info(
            "app started",
            metadata: [
                "curtain_app": "\(instance.app)", "curtain_launch_id": "\(instance.launch)",
                "curtain_app_pid": "\(instance.pid)",
            ]
        )
        // Messages that raced ahead of the registration, in the order they came.
        for datagram in waiting { await handle(datagram) }
    }

    private func failedToStart(_ id: LaunchID, app: String, error: String) async {
        releasedEarly.remove(id)
        crashGuard.failed(app, at: elapsed())
        publisher.failed(id, "app '\(app)' could not be started: \(error)")
    }

    private func exited(_ spawnedFor: LaunchID, status: ProcessExits.Status) async {
        await catchUp()
        guard let (pid, instance) = instances.first(where: { $0.value.spawnLaunch == spawnedFor }) else { return }
        let id = instance.launch
        instances[pid] = nil
        attribution.unregister(pid)
        byLaunch[id] = nil
        let how = status.description
        var fields: Logger.Metadata = [
            "curtain_app": "\(instance.app)", "curtain_launch_id": "\(id)",
            "curtain_app_pid": "\(pid)", "curtain_exit": "\(how)",
        ]
        if let status = instance.lastStatus { fields["curtain_app_status"] = "\(status)" }
        logger.log(.appExited, "app exited with \(how)", fields)
        // Whatever it left behind, in its group or re-parented here (as systemd stops a
        // service's whole cgroup when its main process exits).
        kill(-pid, SIGKILL)
        // Whatever it left is a child of this process or below one, re-parented here when its
        // parent exited (curtaind is a child subreaper): to the main thread, which spawns no
        // app. So only the subtrees under those orphans are looked at (almost always none),
        // never every process on the machine (a scan of /proc was 15 % of curtaind's CPU in
        // scenario 6 of `make bench`, and reading every thread's children 7 %: issue 18).
        let unknown = ProcessTree.adopted()?.subtracting(instances.keys)
        let table = unknown.flatMap { $0.isEmpty ? [:] : ProcessTree.subtree(of: $0) }
        let leftovers =
            table?.isEmpty == true
            ? [] : processes(of: instance, in: table ?? ProcessTree.snapshot(), includeMain: false)
        await ProcessTree.stop(leftovers, grace: .zero)
        runtime?.setProcesses(launch: id.value, app: instance.app, [])
        reapOrphans()
        guard !instance.released else { return }
        if !instance.ready || !status.isSuccess { crashGuard.failed(instance.app, at: elapsed()) }
        // Ready, then gone (a one-shot app, or systemd-notify run as the app): its launch
        // goes on; the exit is logged above.
        guard !instance.ready else { return }
        var last = instance.lastStatus.map { "; its last status: \($0)" } ?? ""
        if let number = instance.lastErrno { last += "; ERRNO=\(number) (\(POSIX.errorText(number)))" }
        publisher.failed(id, "app exited with \(how) before it was ready\(last)")
    }

    // MARK: - Notify messages

    /// Held messages whose window has passed are rejected for good.
    private func expireUnattributed() {
        let now = ContinuousClock.now
        for entry in attribution.expire(at: elapsed()) {
            senderLog.warning(
                logger,
                "notify message from a process outside every app rejected",
                pid: entry.pid,
                metadata: ["curtain_sender_session": "\(entry.session)"],
                at: now
            )
        }
    }

    private func handle(_ datagram: NotifyReceiver.Datagram) async {
        let now = ContinuousClock.now
        if datagram.truncated {
            return senderLog.warning(
                logger,
                "notify message dropped: longer than \(NotifyMessage.maximumSize) bytes",
                pid: datagram.pid,
                at: now
            )
        }
        guard let owner = attribution.owner(pid: datagram.pid, session: datagram.session),
            let instance = instances[owner]
        else {
            // A unit's process (the unit backend asks systemd), or an app being registered
            // right now (held for a while), or a stranger.
            if let unitClaim, await unitClaim(datagram) { return }
            switch attribution.attribute(datagram, pid: datagram.pid, session: datagram.session, at: elapsed()) {
            case .app:
                await handle(datagram)  // its app registered while the unit backend was asked
            case .held:
                Task {
                    // the window itself
                    try? await Task.sleep(for: NotifyAttribution<NotifyReceiver.Datagram>.window + .milliseconds(10))
                    self.expireUnattributed()
                }
            case .rejected:
                senderLog.warning(
                    logger,
                    "notify message from a process outside every app rejected",
                    pid: datagram.pid,
                    at: now
                )
            }
            return
        }
        let message: NotifyMessage
        do { message = try datagram.message.get() } catch {
            return senderLog.warning(
                logger,
                "notify message dropped: \(error)",
                pid: datagram.pid,
                metadata: ["curtain_app": "\(instance.app)"],
                at: now
            )
        }
        let note = AppNotification(message)
        for refused in note.refused {
            senderLog.warning(
                logger,
                "\(refused)",
                pid: datagram.pid,
                metadata: ["curtain_app": "\(instance.app)"],
                at: now
            )
        }
        if let status = note.status { instances[owner]?.lastStatus = status }
        if let elements = note.elements { instances[owner]?.elements = elements }
        if let number = note.errno { instances[owner]?.lastErrno = number }
        let id = instance.launch
        // Answered by the driver after what it is told now (deferred: the returns below hand
        // the rest of the message elsewhere, and the barrier closes with the datagram then).
        defer { if message.barrier, let barrier = datagram.barrier { publisher.publish(.barrier(id, barrier)) } }
        for event in note.events(for: id, elements: instances[owner]?.elements ?? [:]) {
            guard case .ready(_, let stage, _, _) = event else {
                publisher.publish(event)
                continue
            }
            if stage == .ready { instances[owner]?.ready = true }
            // Told a later destination over io.curtain.App: these stages are about the first.
            if instance.redirected { return }
            if let pending = instance.pending {
                guard stage == .ready else { return }
                // Ready with what it started with, never told the retarget's destination (it
                // did not attach): a warm start, as the app's `warm` says.
                instances[owner]?.pending = nil
                if pending.snapshot.app(named: instance.app)?.warm == .revealNow {
                    return publisher.ready(id, .ready, note.status, [:])
                }
                teardown(owner)
                return await start(id, pending.destination, route: pending.route, snapshot: pending.snapshot)
            }
            publisher.publish(event)
        }
    }
}
