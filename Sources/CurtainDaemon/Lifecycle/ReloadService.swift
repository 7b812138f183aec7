import ServiceLifecycle
import UnixSignals

/// SIGHUP: reload, all or nothing (see `Reloader`).
struct ReloadService: Service {
    let reloader: Reloader

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangups.cancelOnGracefulShutdown() {
            _ = await reloader.reload()
        }
    }
}
