import ServiceLifecycle

/// curtaind's services and the order they stop in, in one place. A `ServiceGroup` starts its
/// services in array order and shuts them down in reverse, each one only after the previous
/// one's `run` has returned, so `inStartOrder` is the shutdown order read backwards:
///
/// 1. `stopping`: the journal line and STOPPING=1;
/// 2. `reload`: SIGHUP is no longer taken;
/// 3. `driver`: every launch ends cancelled, its final event goes to its observers, the
///    observer streams end, new launches are refused (ShuttingDown) — while the server still
///    carries those events, which is why the driver stops before the server;
/// 4. `server`: no more connections; the calls still open end and the connections close;
/// 5. `supervisor`: the apps' process trees are stopped and the notify socket closes (after
///    the driver, whose last releases it carries out; after the server, through which
///    attached apps could still register);
/// 6. `watchdog`: WATCHDOG=1 goes on until everything else has finished.
struct CurtaindServices<WatchdogClock: Clock, DriverClock: Clock>
where WatchdogClock.Duration == Duration, DriverClock.Duration == Duration {
    var stopping: StoppingService
    var reload: ReloadService
    var driver: DriverService<DriverClock>
    var server: ServerService
    var supervisor: SupervisorService
    var watchdog: WatchdogService<WatchdogClock>
    /// Test-only services (`TestWedgeService`), stopped first.
    var extra: [any Service] = []

    /// Names for logs and tests, in the order the group starts them.
    var inStartOrder: [(name: String, service: any Service)] {
        [
            ("watchdog", watchdog), ("supervisor", supervisor), ("server", server), ("driver", driver),
            ("reload", reload),
            ("stopping", stopping),
        ] + extra.map { ("\(type(of: $0))", $0) }
    }
}
