import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// TEST ONLY (docs/testing.md): wedges curtaind on a signal, so the tests can watch systemd's
/// WatchdogSec restart it. With `CURTAIN_TEST_WEDGE_ON=SIGUSR2` (or SIGUSR1) in curtaind's
/// environment at start-up, that signal blocks one event loop forever, as a deadlock would:
/// the watchdog's round trip through the loops never returns, the WATCHDOG=1 pings stop, and
/// systemd kills and restarts the service. Without the variable — always in production —
/// nothing is installed and the signals keep their default action.
struct TestWedgeService: Service {
    static let variable = "CURTAIN_TEST_WEDGE_ON"

    let signal: UnixSignal
    let loop: any EventLoop
    let logger: Logger

    /// The service when the variable is set (read once, at start-up), else none.
    static func fromEnvironment(loop: any EventLoop, logger: Logger) -> [any Service] {
        guard let name = POSIX.environment(variable) else { return [] }
        let signal: UnixSignal
        switch name {
        case "SIGUSR1": signal = .sigusr1
        case "SIGUSR2": signal = .sigusr2
        default:
            logger.error("\(variable) ignored: SIGUSR1 or SIGUSR2 expected", metadata: ["value": "\(name)"])
            return []
        }
        logger.warning("test-only wedge armed: \(name) blocks an event loop forever")
        return [TestWedgeService(signal: signal, loop: loop, logger: logger)]
    }

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: signal)
        for await _ in signals.cancelOnGracefulShutdown() {
            logger.warning("test-only wedge: blocking an event loop")
            loop.execute { while true { pause() } }
        }
    }
}
