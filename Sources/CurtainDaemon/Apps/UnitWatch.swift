/// What systemd says about a unit: its state and, for a service, how its main process ended.
/// Fields are optional because a PropertiesChanged signal carries only some of them.
struct UnitState: Sendable, Hashable {
    var activeState: String?
    var subState: String?
    var result: String?
    var execMainCode: Int32?
    var execMainStatus: Int32?

    /// A later observation's fields over this one's.
    mutating func merge(_ other: UnitState) {
        if let value = other.activeState { activeState = value }
        if let value = other.subState { subState = value }
        if let value = other.result { result = value }
        if let value = other.execMainCode { execMainCode = value }
        if let value = other.execMainStatus { execMainStatus = value }
    }

    /// "Result=exit-code, exit status 3" — how systemd says the unit's main process ended.
    var ending: String {
        var parts = ["Result=\(result ?? "unknown")"]
        switch (execMainCode, execMainStatus) {
        case (1?, let status?): parts.append("exit status \(status)")  // CLD_EXITED
        case (2?, let signal?): parts.append("killed by signal \(signal)")  // CLD_KILLED
        case (3?, let signal?): parts.append("dumped core on signal \(signal)")  // CLD_DUMPED
        default: break
        }
        return parts.joined(separator: ", ")
    }
}

/// The readiness of one launch's unit, from what systemd reports, with no IO and no clock:
/// the unit backend feeds it observations and publishes what it concludes.
///
/// A unit is ready when it is active: for `Type=notify`, systemd makes it active on READY=1,
/// so an app that only sends READY=1 to systemd is ready for Curtain too. It failed when it
/// goes `failed`, goes `inactive`, or is about to be restarted (`auto-restart`) before that,
/// or when its start job ends in anything but `done`. States seen before the start took
/// effect (a stop of an earlier run, still in flight) are not held against it: only after
/// the unit was seen activating do `failed` and `inactive` count; a failure too quick to be
/// seen activating still ends the start job, which says so.
struct UnitWatch: Sendable, Hashable {
    enum Observation: Sendable, Hashable {
        /// A PropertiesChanged signal (or a fresh read) of the unit.
        case properties(UnitState)
        /// The start job ended with systemd's job result ("done", "failed", "timeout",
        /// "canceled", "dependency", …); `state` is the unit read after it.
        case startJobEnded(result: String, state: UnitState)
    }

    enum Outcome: Sendable, Hashable {
        case ready
        case failed(String)
    }

    let unit: String
    private(set) var state = UnitState()
    private(set) var seenActivating = false
    /// Concluded: nothing further changes the launch.
    private(set) var outcome: Outcome?

    init(unit: String) { self.unit = unit }

    /// Takes an observation; returns the outcome the first time there is one.
    mutating func observe(_ observation: Observation) -> Outcome? {
        guard outcome == nil else { return nil }
        let concluded: Outcome?
        switch observation {
        case .properties(let update):
            state.merge(update)
            concluded = evaluate(update.activeState, sub: update.subState ?? state.subState)
        case .startJobEnded(let result, let fresh):
            state.merge(fresh)
            if result == "done" {
                // Done: the unit got as far as its type goes; its state says how that ended.
                seenActivating = true
                concluded = evaluate(fresh.activeState, sub: fresh.subState)
            } else {
                concluded = .failed("unit \(unit) did not start (job \(result)): \(state.ending)")
            }
        }
        outcome = concluded
        return concluded
    }

    private mutating func evaluate(_ active: String?, sub: String?) -> Outcome? {
        switch active {
        case "active"?, "reloading"?:
            return .ready
        case "activating"?:
            if sub == "auto-restart" {
                return .failed(
                    "unit \(unit) failed before it was ready and is being restarted by systemd: \(state.ending)"
                )
            }
            seenActivating = true
            return nil
        case "failed"? where seenActivating:
            return .failed("unit \(unit) failed before it was ready: \(state.ending)")
        case "inactive"? where seenActivating:
            return .failed("unit \(unit) stopped before it was ready: \(state.ending)")
        default:
            return nil
        }
    }
}

/// The file a unit reads the launch's destination from (`EnvironmentFile=-/run/curtain/units/%n.env`):
/// systemd parses it itself, no shell involved. Every value is double-quoted with `\`, `"`,
/// `` ` `` and `$` escaped, which systemd's parser takes back literally.
enum UnitEnvironment {
    static func file(_ variables: [(String, String)]) -> String {
        variables.map { key, value in
            var escaped = ""
            for character in value {
                if "\\\"`$".contains(character) { escaped.append("\\") }
                escaped.append(character)
            }
            return "\(key)=\"\(escaped)\"\n"
        }.joined()
    }
}
