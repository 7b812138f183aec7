import CurtainConfig
import Synchronization

/// The running configuration, shared by the Varlink handlers and the reload service.
final class SharedConfiguration: Sendable {
    private let holder: Mutex<ConfigurationHolder>
    init(_ holder: ConfigurationHolder) { self.holder = Mutex(holder) }
    var current: Configuration { holder.withLock { $0.current } }
    func adopt(_ configuration: Configuration) { holder.withLock { $0.adopt(configuration) } }
}
