import CurtainConfig
import CurtainCore
import Logging
import Systemd
import Varlink

/// curtaind's real io.curtain.Launcher and io.curtain.App bindings on a driver that starts no
/// apps (`ExternalApps`) and whose frame loop does not run, with no socket and no logging:
/// for the fuzz target (Fuzz/LauncherFuzz) and in-process tests, which drive them through
/// `VarlinkService.handle` exactly as the server does.
package enum DetachedBindings {
    /// A service on `configuration`; Reload reads `configurationPath` (by default none, so
    /// Reload is refused).
    package static func service(
        _ configuration: Configuration,
        configurationPath: String = "/nonexistent/curtain.toml"
    ) throws -> VarlinkService {
        let logger = Logger(label: "curtaind.detached", factory: { _ in SwiftLogNoOpLogHandler() })
        let state = SharedConfiguration(ConfigurationHolder(configuration))
        let driver = LaunchDriver(
            settings: configuration.daemon.launchSettings,
            fps: configuration.daemon.frameRate ?? configuration.display.refreshRate,
            clock: ContinuousClock(),
            broadcaster: Broadcaster(),
            supervisor: ExternalApps(),
            logger: logger
        )
        let reloader = Reloader(
            path: configurationPath,
            explicit: true,
            state: state,
            notifier: Notifier(),
            logger: logger,
            status: { await driver.statusLine() }
        )
        let bindings = LauncherService(
            driver: driver,
            state: state,
            reloader: reloader,
            version: CurtainVersion.string,
            started: .now
        )
        return try VarlinkService(
            info: .init(
                vendor: "Curtain",
                product: "curtaind",
                version: CurtainVersion.string,
                url: "https://github.com/curtain"
            ),
            interfaces: bindings.interfaces()
        )
    }
}
