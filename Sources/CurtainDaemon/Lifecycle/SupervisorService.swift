import ServiceLifecycle

/// The app supervisor's notify socket loop; on shutdown every app's process group is killed.
struct SupervisorService: Service {
    let supervisor: ProcessSupervisor
    /// The unit backend stops listening to systemd (its units go on running).
    var units: UnitSupervisor? = nil

    func run() async throws {
        await withGracefulShutdownHandler {
            await supervisor.run()
        } onGracefulShutdown: {
            Task { [units] in
                await units?.stop()
                await supervisor.stop()
            }
        }
    }
}
