import CNotify
import CurtainConfig
import CurtainCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import Systemd
import UnixSignals
import UnixSockets
import Varlink
import VarlinkNIO

#if canImport(Glibc)
import Glibc
#endif

/// curtaind's entry point: one function that returns an exit status (like systemd's tools).
///
/// Order of start-up, as systemd expects of Type=notify: configuration loaded, socket
/// listening, then READY=1. SIGTERM: STOPPING=1, graceful shutdown of the Varlink server
/// (streams get a final reply), exit 0. SIGHUP: RELOADING=1, reload (all or nothing), READY=1.
/// WATCHDOG=1 at half of WATCHDOG_USEC, each ping only after an event-loop round trip, so a
/// wedged loop stops the pings and systemd restarts the service.
public enum Daemon {
    public struct Options: Sendable {
        public var configPath: String?
        public var socketPath: String?
        /// What `Allocator.turnOffThreadCaches` did, for the start-up log (nil: not asked).
        public var threadCaches: Allocator.ThreadCaches?
        public init(configPath: String? = nil, socketPath: String? = nil, threadCaches: Allocator.ThreadCaches? = nil) {
            self.configPath = configPath
            self.socketPath = socketPath
            self.threadCaches = threadCaches
        }
    }

    public static func run(_ options: Options) async -> Int32 {
        Allocator.configure()
        LoggingSystem.bootstrap { JournalLogHandler(label: $0, identifier: "curtaind") }
        var logger = Logger(label: "curtaind")
        logger.logLevel = .info
        let notifier = Notifier()
        let started = ContinuousClock.now
        OpenFileLimit.raiseToHardLimit()

        let path = options.configPath ?? Configuration.defaultPath
        let holder: ConfigurationHolder
        do {
            holder = ConfigurationHolder(try ConfigurationHolder.load(path, explicit: options.configPath != nil))
        } catch {
            for problem in error.errors {
                logger.log(.configurationInvalid, "\(problem)", ["curtain_config": "\(path)"])
            }
            return 1
        }
        if !POSIX.fileExists(path) {
            logger.notice("no configuration file; using the built-in defaults", metadata: ["curtain_config": "\(path)"])
        }
        let state = SharedConfiguration(holder)

        let configuration = state.current
        let broadcaster = Broadcaster()
        let address: VarlinkServer.Address
        if let fd = SocketActivation.listeningDescriptor(named: "varlink", in: SocketActivation.takeDescriptors()) {
            address = .listeningDescriptor(fd)
        } else {
            address = .path(
                options.socketPath ?? userRuntimePath(
                    default: configuration.daemon.socket,
                    systemDefault: Configuration().daemon.socket
                ) ?? configuration.daemon.socket
            )
        }
        // Apps reach io.curtain.App here: the path bound, or the one the passed socket has.
        let apiSocket: String =
            switch address {
            case .path(let path): path
            case .listeningDescriptor(let fd): boundPath(of: fd) ?? configuration.daemon.socket
            }
        let supervisor: ProcessSupervisor
        let notifyPath =
            userRuntimePath(
                default: configuration.daemon.notifySocket,
                systemDefault: Configuration().daemon.notifySocket
            )
            ?? configuration.daemon.notifySocket
        // Alone? Decided before anything in the runtime directory is touched: a second
        // curtaind must not take the running one's notify socket away.
        let runtimeDirectory = POSIX.directoryName(notifyPath)
        let lock: RuntimeLock
        do { lock = try RuntimeLock(directory: runtimeDirectory.isEmpty ? "." : runtimeDirectory) } catch {
            logger.error("\(error)", metadata: ["curtain_runtime_directory": "\(runtimeDirectory)"])
            return 1
        }
        // Orphaned descendants of apps are re-parented here, so teardown still reaches them.
        let subreaper = curtain_set_child_subreaper() == 0
        if !subreaper {
            logger.warning("cannot become a child subreaper", metadata: ["error": "\(POSIX.errorText(errno))"])
        }
        let (runtime, interrupted) = await recover(directory: lock.directory, logger: logger)
        do {
            supervisor = try ProcessSupervisor(
                notifySocket: notifyPath,
                apiSocket: apiSocket,
                runtime: runtime,
                sweepsOrphans: subreaper,
                logger: logger
            )
        } catch {
            logger.error(
                "cannot open the notify socket for apps",
                metadata: ["curtain_socket": "\(notifyPath)", "error": "\(error)"]
            )
            return 1
        }
        let frameClock: FrameClock
        do { frameClock = try FrameClock(priority: .realtime) } catch {
            logger.error("cannot start the frame clock", metadata: ["error": "\(error)"])
            return 1
        }
        if let caches = options.threadCaches {
            let level: Logger.Level = if case .on = caches { .notice } else { .info }
            logger.log(level: level, "allocator: \(caches)")
        }
        let scheduling = await frameClock.scheduling()
        logger.log(
            level: scheduling == .realtime(priority: FrameClock.realtimePriority) ? .info : .notice,
            "frame clock: \(scheduling)"
        )
        // Apps that are units: started through systemd; connected on the first such launch.
        let units = UnitSupervisor(
            runtimeDirectory: lock.directory,
            apiSocket: apiSocket,
            notifySocket: notifyPath,
            logger: logger
        ) { [supervisor] in
            await supervisor.deliver($0, $1, $2, $3, hide: $4)
        }
        await supervisor.offerUnattributed { [units] in await units.claim($0) }
        let origin = Mutex<Int64?>(nil)
        let driver = LaunchDriver(
            settings: configuration.daemon.launchSettings,
            fps: configuration.daemon.frameRate ?? configuration.display.refreshRate,
            clock: frameClock,
            broadcaster: broadcaster,
            supervisor: AppBackends(processes: supervisor, units: units),
            logger: logger,
            onStatus: { notifier.status($0) },
            firstID: runtime.current.lastLaunchID + 1,
            interrupted: interrupted,
            onLaunches: { inFlight, lastID in
                let origin = origin.withLock { $0 }
                runtime.setLaunches(
                    inFlight.map { launch in
                        RuntimeState.RecordedLaunch(
                            id: launch.id.value,
                            route: launch.route,
                            destination: launch.destination,
                            requestedBoottimeMicroseconds: origin.map { $0 + Int64(launch.requestedAt * 1_000_000) }
                        )
                    },
                    lastID: lastID
                )
            }
        )
        origin.withLock { $0 = driver.clockOriginMicroseconds }
        let reloader = Reloader(
            path: path,
            explicit: options.configPath != nil,
            state: state,
            notifier: notifier,
            logger: logger,
            status: { await driver.statusLine() }
        )
        var bindings = LauncherService(
            driver: driver,
            state: state,
            reloader: reloader,
            version: CurtainVersion.string,
            started: started
        )
        bindings.supervisor = supervisor
        let service: VarlinkService
        do {
            service = try VarlinkService(
                info: .init(
                    vendor: "Curtain",
                    product: "curtaind",
                    version: CurtainVersion.string,
                    url: "https://github.com/curtain"
                ),
                interfaces: bindings.interfaces()
            )
        } catch {
            logger.critical("built-in interface does not parse", metadata: ["error": "\(error)"])
            return 1
        }

        broadcaster.encodeFrames(with: service.replyPreparer(for: SharedFrame.watchMethod))
        let daemon = state.current.daemon
        var serverConfiguration = VarlinkServer.Configuration()
        serverConfiguration.maximumMessageSize = daemon.maximumMessageSize
        serverConfiguration.maximumConnections = daemon.maximumConnections
        serverConfiguration.maximumConnectionsPerUID = daemon.maximumConnectionsPerUser
        serverConfiguration.onDrained = Allocator.releaseFreeMemory
        serverConfiguration.socketMode = mode_t(daemon.socketMode)
        if let group = daemon.socketGroup {
            guard let entry = getgrnam(group) else {
                logger.error("socket group does not exist", metadata: ["group": "\(group)"])
                return 1
            }
            serverConfiguration.socketGroup = entry.pointee.gr_gid
        }
        let server = VarlinkServer(
            service: service,
            address: address,
            configuration: serverConfiguration,
            logger: logger
        )

        // The order they stop in is CurtaindServices' (each service's run returns after its own stop).
        let services = CurtaindServices(
            stopping: StoppingService { [notifier, logger] in
                logger.log(.daemonStopping, "stopping: cancelling launches, draining connections")
                notifier.stopping()
            },
            reload: ReloadService(reloader: reloader),
            driver: DriverService(driver: driver),
            server: ServerService(server: server) { [notifier, logger, server] in
                logger.log(.daemonReady, "ready", ["curtain_socket": "\(server.address)"])
                notifier.ready(status: "idle")
            },
            supervisor: SupervisorService(supervisor: supervisor, units: units),
            watchdog: WatchdogService(
                interval: notifier.watchdogInterval,
                clock: ContinuousClock(),
                loops: Array(MultiThreadedEventLoopGroup.singleton.makeIterator()),
                probes: [{ await driver.heartbeat() }],
                ping: { notifier.watchdog() }
            ),
            extra: TestWedgeService.fromEnvironment(loop: MultiThreadedEventLoopGroup.singleton.next(), logger: logger)
        )
        let group = ServiceGroup(
            configuration: .init(
                services: services.inStartOrder.map { .init(service: $0.service) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        let status: Int32
        do {
            try await group.run()
            status = 0
        } catch {
            logger.error("stopped on an error", metadata: ["error": "\(error)"])
            status = 1
        }
        // A clean exit: every app was stopped; no socket is left for apps to send to. The
        // lock file stays (removing it would race with a successor taking it); the lock
        // itself goes with the process.
        unlink(notifyPath)
        withExtendedLifetime(lock) {}
        return status
    }

    /// Reads what a predecessor that did not exit cleanly left in the runtime directory,
    /// stops its apps' processes (stopping rather than adopting: a restarted daemon knows
    /// nothing of their readiness, and systemd would have stopped the cgroup too) and returns
    /// the state to go on from (the last launch id) and the launches it had in flight (they
    /// end failed, "daemon restarted", in the new daemon's history — no longer in the file).
    static func recover(
        directory: String,
        logger: Logger
    ) async -> (RuntimeState, interrupted: [RuntimeState.RecordedLaunch]) {
        let path = directory + "/" + RuntimeState.fileName
        var previous = RuntimeState.Contents()
        do {
            previous = try RuntimeState.read(path) ?? .init()
        } catch {
            logger.warning("state file ignored: \(error)", metadata: ["curtain_state_file": "\(path)"])
        }
        if !previous.processes.isEmpty {
            let stopped = await ProcessSupervisor.stopLeftovers(previous.processes)
            if stopped > 0 {
                logger.log(
                    .leftoversStopped,
                    "stopped \(stopped) app process(es) a previous curtaind left running",
                    ["curtain_state_file": "\(path)", "curtain_processes": "\(stopped)"]
                )
            }
        }
        for launch in previous.launches {
            logger.log(
                .launchInterrupted,
                "launch \(launch.id) failed: \(LaunchDriver<ContinuousClock>.restartReason)",
                [
                    "curtain_launch_id": "\(launch.id)", "curtain_app": "\(launch.destination.app)",
                    "curtain_route": "\(launch.route)",
                ]
            )
        }
        let interrupted = previous.launches
        previous.processes = []
        previous.launches = []
        RuntimeState.write(previous, to: path)
        return (RuntimeState(directory: directory, contents: previous), interrupted)
    }

    /// The path a Unix socket is bound to (getsockname), for a socket systemd passed.
    /// An abstract name counts as none: apps are given a path.
    static func boundPath(of fd: Int32) -> String? {
        UnixSocketAddress.bound(to: fd).flatMap { $0.isAbstract ? nil : $0.path }
    }

    /// Not root and a socket at its system default: one of the user's own under
    /// $XDG_RUNTIME_DIR/curtain (the system directory is not writable for a user).
    static func userRuntimePath(default path: String, systemDefault: String) -> String? {
        guard getuid() != 0, path == systemDefault,
            let runtime = POSIX.environment("XDG_RUNTIME_DIR"), !runtime.isEmpty
        else { return nil }
        let directory = runtime + "/curtain"
        POSIX.createDirectories(directory)
        return directory + "/" + POSIX.baseName(path)
    }
}
