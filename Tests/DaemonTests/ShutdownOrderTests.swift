import CurtainConfig
import CurtainCore
import CurtainTestKit
import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import Systemd
import Testing
import Varlink
import VarlinkNIO

@testable import CurtainDaemon

/// curtaind's services as `Daemon.run` orders them (`CurtaindServices`), with real parts —
/// a Varlink server on a socket, the process supervisor with its notify socket and a spawned
/// app, the driver — in one ServiceGroup, shut down through swift-service-lifecycle's test
/// kit. Each service's `run` returning is recorded, in process.
@Suite struct ShutdownOrderTests {
    /// The order in which services' `run`s returned.
    final class Recorder: Sendable {
        let ends = Mutex<[String]>([])
        func ended(_ name: String) { ends.withLock { $0.append(name) } }
    }

    /// A service that records when the service it wraps has returned from `run`.
    struct Recorded: Service {
        let name: String
        let service: any Service
        let recorder: Recorder
        func run() async throws {
            defer { recorder.ended(name) }
            try await service.run()
        }
    }

    @Test(.timeLimit(.minutes(1))) func servicesStopInTheirOrderAndObserversGetTheFinalEvent() async throws {
        let directory = TestEnvironment.temporaryDirectory("shutdown-order")
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("curtain.sock").path
        // An app that never gets ready: its launch is in flight when shutdown begins.
        let configuration = try Configuration(
            toml: """
                [[apps]]
                name = "shop"
                exec = ["/bin/sleep", "30"]
                screens = ["home"]
                default_screen = "home"
                """,
            file: "test.toml"
        )
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let state = SharedConfiguration(ConfigurationHolder(configuration))
        let supervisor = try ProcessSupervisor(
            notifySocket: directory.appendingPathComponent("notify").path,
            apiSocket: socket,
            logger: logger
        )
        let driver = LaunchDriver(
            settings: configuration.daemon.launchSettings,
            fps: 10,
            clock: ManualClock(),
            broadcaster: Broadcaster(),
            supervisor: supervisor,
            logger: logger
        )
        let reloader = Reloader(
            path: directory.appendingPathComponent("absent.toml").path,
            explicit: true,
            state: state,
            notifier: Notifier(),
            logger: logger,
            status: { "" }
        )
        var bindings = LauncherService(driver: driver, state: state, reloader: reloader, version: "test", started: .now)
        bindings.supervisor = supervisor
        let server = VarlinkServer(
            service: try VarlinkService(
                info: .init(vendor: "Curtain", product: "curtaind", version: "test", url: ""),
                interfaces: bindings.interfaces()
            ),
            address: .path(socket),
            logger: logger
        )
        let (listening, isListening) = AsyncStream.makeStream(of: Void.self)
        let recorder = Recorder()
        let services = CurtaindServices(
            stopping: StoppingService { recorder.ended("stopping announced") },
            reload: ReloadService(reloader: reloader),
            driver: DriverService(driver: driver),
            server: ServerService(server: server) { isListening.finish() },
            supervisor: SupervisorService(supervisor: supervisor),
            watchdog: WatchdogService(interval: nil, clock: ManualClock(), loops: [], ping: {})
        )
        let group = ServiceGroup(
            configuration: .init(
                services: services.inStartOrder.map {
                    .init(service: Recorded(name: $0.name, service: $0.service, recorder: recorder))
                },
                logger: logger
            )
        )

        let events = try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: [String: JSONValue]?.self) { tasks in
                tasks.addTask {
                    try await group.run()
                    return nil
                }
                for await _ in listening {}
                // A launch in flight, its stream open on the server: what shutdown must end properly.
                let (stream, connected) = AsyncStream.makeStream(of: Void.self)
                tasks.addTask {
                    try await VarlinkConnection.withConnection(to: socket) { connection in
                        var last: [String: JSONValue] = [:]
                        var replies = connection.callMore("io.curtain.Launcher.Launch", ["route": ["normal": "shop"]])
                            .makeAsyncIterator()
                        while let reply = try await replies.next() {
                            connected.finish()  // the first reply: the launch exists
                            if case .object(let event)? = reply["event"] { last = event }
                        }
                        return last
                    }
                }
                for await _ in stream {}
                trigger.triggerGracefulShutdown()
                var final: [String: JSONValue] = [:]
                for try await result in tasks { if let result { final = result } }
                return final
            }
        }
        // The launch's stream ended with its own final event, not with the server's ShuttingDown.
        #expect(events["to"] == "cancelled" && events["reason"] == "daemon stopping", "\(events)")
        #expect(
            recorder.ends.withLock { $0 } == [
                "stopping announced", "stopping", "reload", "driver", "server", "supervisor", "watchdog",
            ]
        )
    }
}
