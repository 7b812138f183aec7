import NIOCore
import ServiceLifecycle

/// WATCHDOG=1 at half of WATCHDOG_USEC (systemd's advice), each ping only after a round trip
/// through every event loop and every other probe (the launch driver's actor, which runs the
/// frame clock): a wedged loop never answers, no ping follows, and systemd restarts the
/// service. The clock is a parameter so tests drive the cadence themselves.
struct WatchdogService<C: Clock>: Service where C.Duration == Duration {
    /// nil when the watchdog is off: the service then only waits for shutdown.
    let interval: Duration?
    let clock: C
    let loops: [any EventLoop]
    var probes: [@Sendable () async -> Void] = []
    let ping: @Sendable () -> Void

    func run() async throws {
        guard let interval else { return try await gracefulShutdown() }
        do {
            try await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    for loop in loops { try await loop.submit {}.get() }
                    for probe in probes { await probe() }
                    ping()
                    try await clock.sleep(for: interval)
                }
            }
        } catch is CancellationError {
            // Shutdown ends the pings; nothing failed.
        }
    }
}
