/// Keeps an app that keeps failing from being started again and again, with time as input
/// (no clock: the supervisor passes its own, the tests plain numbers): an app that failed
/// `limit` times within `window` is not started until the oldest of those failures leaves
/// the window.
struct CrashLoopGuard: Sendable {
    static let limit = 5
    static let window: Duration = .seconds(60)

    /// Why an app is not started now.
    struct Refusal: Sendable, Equatable, CustomStringConvertible {
        let app: String
        let failures: Int
        /// Until the oldest failure leaves the window.
        let wait: Duration

        var description: String {
            "app '\(app)' failed \(failures) times within \(CrashLoopGuard.window.components.seconds) s; "
                + "not started again for \(wait.components.seconds + 1) s"
        }
    }

    /// Failure times per app, those within the window only (older ones are dropped as they are seen).
    private var failures: [String: [Duration]] = [:]

    /// The app failed (could not start, exited before ready, or exited unsuccessfully) at `now`.
    mutating func failed(_ app: String, at now: Duration) {
        failures[app, default: []].append(now)
    }

    /// Whether `app` may start at `now`: nil, or why not.
    mutating func check(_ app: String, at now: Duration) -> Refusal? {
        let recent = (failures[app] ?? []).filter { now - $0 < Self.window }
        failures[app] = recent.isEmpty ? nil : recent
        guard recent.count >= Self.limit else { return nil }
        return Refusal(app: app, failures: recent.count, wait: Self.window - (now - recent[0]))
    }
}
