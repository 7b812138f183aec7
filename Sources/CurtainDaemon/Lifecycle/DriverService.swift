import ServiceLifecycle

/// The launch driver's loop (coordinator deadlines and the frame clock) as a service. Its
/// stop is its own: on graceful shutdown every launch ends cancelled with a final event and
/// the observer streams end, and `run` returns once the loop has seen that (not when a task
/// fired elsewhere gets round to it).
struct DriverService<C: Clock>: Service where C.Duration == Duration {
    let driver: LaunchDriver<C>

    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await driver.run() }
            // Cancellation (the group gave up) stops the launches just the same.
            try? await gracefulShutdown()
            await driver.stop()
        }
    }
}
