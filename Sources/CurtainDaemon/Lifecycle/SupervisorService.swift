import ServiceLifecycle

/// The app supervisor's notify socket loop; on shutdown every app's process group is killed.
struct SupervisorService: Service {
    let supervisor: ProcessSupervisor

    func run() async throws {
        await withGracefulShutdownHandler {
            await supervisor.run()
        } onGracefulShutdown: {
            Task { await supervisor.stop() }
        }
    }
}
