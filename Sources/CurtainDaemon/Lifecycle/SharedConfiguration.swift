import CurtainConfig
import Synchronization

/// The running configuration, shared by the Varlink handlers and the reload service.
final class SharedConfiguration: Sendable {
    private let holder: Mutex<ConfigurationHolder>
    init(_ holder: ConfigurationHolder) { self.holder = Mutex(holder) }
    var current: Configuration { holder.withLock { $0.current } }
    /// The running configuration with its compiled transitions: what one launch uses throughout.
    var snapshot: ConfigurationSnapshot { holder.withLock { $0.snapshot } }
    /// Reads the file at `path` again and adopts it, all or nothing (`ConfigurationHolder.reload`).
    func reload(path: String, explicit: Bool, allowEmpty: Bool) throws(ConfigurationErrors) -> Configuration {
        try holder.withLock { (holder: inout ConfigurationHolder) throws(ConfigurationErrors) in
            try holder.reload(path: path, explicit: explicit, allowEmpty: allowEmpty)
        }
    }

    /// Adopts `configuration` unless the holder's rules refuse it (see `ConfigurationHolder.adopt`).
    func adopt(_ configuration: Configuration, file: String, allowEmpty: Bool) throws(ConfigurationErrors) {
        try holder.withLock { (holder: inout ConfigurationHolder) throws(ConfigurationErrors) in
            try holder.adopt(configuration, file: file, allowEmpty: allowEmpty)
        }
    }
}
