import CurtainConfig
import Logging
import Systemd

/// Reads the configuration file again, all or nothing, telling systemd RELOADING=1 before
/// and READY=1 after. SIGHUP and io.curtain.Launcher.Reload both come here.
struct Reloader: Sendable {
    let path: String
    let explicit: Bool
    let state: SharedConfiguration
    let notifier: Notifier
    let logger: Logger
    /// The status line to restore after the reload.
    let status: @Sendable () async -> String

    /// `allowEmpty`: the caller accepts a configuration without apps (SIGHUP never does).
    func reload(allowEmpty: Bool = false) async -> Result<Configuration, ConfigurationErrors> {
        notifier.reloading()
        let result: Result<Configuration, ConfigurationErrors>
        do { result = .success(try state.reload(path: path, explicit: explicit, allowEmpty: allowEmpty)) } catch {
            for problem in error.errors {
                logger.log(.configurationInvalid, "\(problem)", ["curtain_config": "\(path)"])
            }
            result = .failure(error)
        }
        let line = await status()
        switch result {
        case .success:
            logger.log(.configurationReloaded, "configuration reloaded", ["curtain_config": "\(path)"])
            notifier.ready(status: "\(line) (configuration reloaded)")
        case .failure:
            logger.log(.reloadRefused, "reload refused; the running configuration stays", ["curtain_config": "\(path)"])
            notifier.ready(status: "\(line) (reload refused: the configuration has errors)")
        }
        return result
    }
}
