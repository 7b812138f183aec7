import ServiceLifecycle

/// The launch driver's loop (coordinator deadlines and the frame clock) as a service.
struct DriverService<C: Clock>: Service where C.Duration == Duration {
    let driver: LaunchDriver<C>

    func run() async throws {
        await cancelWhenGracefulShutdown { await driver.run() }
    }
}
