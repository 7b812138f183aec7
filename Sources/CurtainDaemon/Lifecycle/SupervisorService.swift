import ServiceLifecycle

/// The app supervisor's notify socket loop. On shutdown the unit backend stops listening to
/// systemd, every app's process tree is stopped (TERM, then KILL after the grace period) and
/// the notify socket closes; `run` returns when its loop has taken the last message.
struct SupervisorService: Service {
    let supervisor: ProcessSupervisor
    /// The unit backend stops listening to systemd (its units go on running).
    var units: UnitSupervisor? = nil

    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await supervisor.run() }  // until the notify socket closes
            try? await gracefulShutdown()
            await units?.stop()
            await supervisor.stop()
        }
    }
}
