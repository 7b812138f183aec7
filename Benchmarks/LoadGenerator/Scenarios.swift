import CurtainctlSupport
import Dispatch
import JSON
import Synchronization
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The load generator's scenarios (issue 9). Each runs against a curtaind that Benchmarks/run
/// started with a configuration made for it, and returns its numbers as one JSON object.
struct Scenarios {
    let socket: String

    func client() throws(LoadError) -> DaemonClient {
        do { return try DaemonClient.connect(explicit: socket) } catch { throw .daemon("\(error)") }
    }

    func call(
        _ client: inout DaemonClient,
        _ method: String,
        _ parameters: [String: JSONValue] = [:]
    ) throws(LoadError) -> [String: JSONValue] {
        do { return try client.call("io.curtain.Launcher." + method, parameters) } catch {
            throw .daemon("\(method): \(error)")
        }
    }

    // MARK: 2. IPC on a held connection

    func ping(count: Int) throws(LoadError) -> [String: JSONValue] {
        var client = try client()
        defer { client.close() }
        for _ in 0..<min(count, 1000) { _ = try call(&client, "Ping") }  // warm-up
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = Time.now()
            _ = try call(&client, "Ping")
            samples.append(Double(Time.now() - start) / 1000)
        }
        return Summary(samples).json().merging(["unit": "µs"]) { $1 }
    }

    // MARK: 3. Launch overhead

    /// Launch → `presenting` at an observer, and READY=1 sent → `revealing` at an observer.
    /// The app (`curtain-load app --go --sent`) waits on the fifo `go` until the launch holds,
    /// then reads the clock, sends READY=1 and writes that instant into the fifo `sent`.
    func launch(count: Int, app: String, go: String, sent: String) throws(LoadError) -> [String: JSONValue] {
        let states = StateLog()
        let pool = try observe(count: 1, frames: false, states: states)
        defer { pool.shutdown() }
        var client = try client()
        defer { client.close() }
        let origin = try clockOrigin(&client)
        var presenting: [Double] = []
        var revealing: [Double] = []
        // The same two spans up to the state change's own time in curtaind (the event's `time`,
        // on CLOCK_BOOTTIME through the clock origin): the daemon's part, without the
        // observer's wake-up and read.
        var presentingInDaemon: [Double] = []
        var revealingInDaemon: [Double] = []
        func inDaemon(_ launch: UInt64, _ to: String, since start: Int64) -> Double? {
            states.daemonTime(launch, to).map { Double(origin + Int64($0 * 1e9) - start) / 1000 }
        }
        for _ in 0..<count {
            let requested = Time.now()
            let reply = try call(&client, "Launch", ["route": ["normal": .string(app)]])
            guard case .object(let info)? = reply["launch"], case .int(let id)? = info["id"] else {
                throw .daemon("Launch answered \(reply)")
            }
            let launch = UInt64(id)
            presenting.append(Double(try states.wait(launch, "presenting") - requested) / 1000)
            _ = try states.wait(launch, "holding")
            try Fifo.write(go, "go\n")
            guard let readyAt = Int64(try Fifo.read(sent).split(separator: "\n").first ?? "") else {
                throw .daemon("the app wrote no time")
            }
            revealing.append(Double(try states.wait(launch, "revealing") - readyAt) / 1000)
            _ = try states.wait(launch, "revealed")
            if let span = inDaemon(launch, "presenting", since: requested) { presentingInDaemon.append(span) }
            if let span = inDaemon(launch, "revealing", since: readyAt) { revealingInDaemon.append(span) }
        }
        return [
            "unit": "µs", "launch_to_presenting": .object(Summary(presenting).json()),
            "ready_to_revealing": .object(Summary(revealing).json()),
            "launch_to_presenting_in_daemon": .object(Summary(presentingInDaemon).json()),
            "ready_to_revealing_in_daemon": .object(Summary(revealingInDaemon).json()),
        ]
    }

    // MARK: 4. Frame pacing

    /// `observers` connections watch every frame while `launches` launches play (their app is
    /// ready at once); lateness is each frame's arrival against its scheduled time.
    func frames(observers: Int, launches: Int, app: String, daemon: Int32) throws(LoadError) -> [String: JSONValue] {
        var client = try client()
        defer { client.close() }
        let origin = try clockOrigin(&client)
        let states = StateLog()
        let pacing = Pacing(observers: observers, origin: origin)
        let pool = ObserverPool { connection, arrived, message in
            if message.contains(#""kind":"frame""#) {
                pacing.frame(connection, arrived: arrived, message)
            } else {
                states.record(message, arrived: arrived, observer: connection)
            }
        }
        try pool.connect(count: observers, to: socket, call: Self.watch(frames: true))
        pool.start()
        defer { pool.shutdown() }
        try waitForObservers(&client, observers)
        let cpuBefore = cpuSeconds(of: daemon) ?? .nan
        let started = Time.now()
        for _ in 0..<launches {
            let last = try launchToEnd(&client, app)
            guard last == "revealed" else { throw .daemon("a launch ended \(last), not revealed") }
            // Every observer has seen the launch end before the next starts.
            try states.waitAll(observers)
            states.reset()
        }
        let wall = Double(Time.now() - started) / 1e9
        let cpu = ((cpuSeconds(of: daemon) ?? .nan) - cpuBefore) / wall * 100
        var result = pacing.json()
        result["observers"] = .int(Int64(observers))
        result["launches"] = .int(Int64(launches))
        result["daemon_cpu_percent"] = .float((cpu * 10).rounded() / 10)
        result["disconnected"] = .int(Int64(pool.closed))
        return result
    }

    // MARK: 5. Memory: observers held open

    /// Holds `observers` connections watching (frames too when asked); reads them unless
    /// `stall`. Prints one line when they are all registered, then holds until stdin closes.
    func hold(observers: Int, frames: Bool, stall: Bool) throws(LoadError) {
        var client = try client()
        defer { client.close() }
        let pool = ObserverPool { _, _, _ in }
        try pool.connect(count: observers, to: socket, call: Self.watch(frames: frames))
        if !stall { pool.start() }
        try waitForObservers(&client, observers)
        printJSON(["observers": .int(Int64(observers)), "stalled": .bool(stall)])
        while readLine() != nil {}
        pool.shutdown()
    }

    // MARK: 6. Throughput

    /// Launches one after another, each to its end, with an app that is ready at once; next
    /// to the spawn floor: `/bin/true` spawned and waited for as many times (and, beside it,
    /// in a session of its own each time, as curtaind's apps are).
    func throughput(count: Int, app: String) throws(LoadError) -> [String: JSONValue] {
        var client = try client()
        defer { client.close() }
        var revealed = 0
        let started = Time.now()
        for _ in 0..<count where try launchToEnd(&client, app) == "revealed" { revealed += 1 }
        let launchSeconds = Double(Time.now() - started) / 1e9
        let floorStarted = Time.now()
        for _ in 0..<count { try Spawn.trueAndWait() }
        let floorSeconds = Double(Time.now() - floorStarted) / 1e9
        let sessionStarted = Time.now()
        for _ in 0..<count { try Spawn.trueAndWait(session: true) }
        let sessionSeconds = Double(Time.now() - sessionStarted) / 1e9
        return [
            "spawn_floor_session_per_second": .float((Double(count) / sessionSeconds * 10).rounded() / 10),
            "count": .int(Int64(count)), "revealed": .int(Int64(revealed)),
            "launches_per_second": .float((Double(count) / launchSeconds * 10).rounded() / 10),
            "spawn_floor_per_second": .float((Double(count) / floorSeconds * 10).rounded() / 10),
        ]
    }

    // MARK: Helpers

    /// A launch of `app` followed to its end (Launch with more); its last state.
    private func launchToEnd(_ client: inout DaemonClient, _ app: String) throws(LoadError) -> String {
        var last = ""
        do {
            try client.stream("io.curtain.Launcher.Launch", ["route": ["normal": .string(app)]]) { reply in
                if case .object(let event)? = reply["event"], case .string(let to)? = event["to"] { last = to }
                return true
            }
        } catch { throw .daemon("Launch: \(error)") }
        return last
    }

    static func watch(frames: Bool) -> [UInt8] {
        VarlinkCall(method: "io.curtain.Launcher.Watch", parameters: ["frames": .bool(frames)], more: true).encoded()
    }

    /// One observer of state events feeding `states`.
    private func observe(count: Int, frames: Bool, states: StateLog) throws(LoadError) -> ObserverPool {
        let pool = ObserverPool { connection, arrived, message in
            states.record(message, arrived: arrived, observer: connection)
        }
        try pool.connect(count: count, to: socket, call: Self.watch(frames: frames))
        pool.start()
        var client = try client()
        defer { client.close() }
        try waitForObservers(&client, count)
        return pool
    }

    /// Watch calls are registered asynchronously: wait until the daemon counts them.
    func waitForObservers(_ client: inout DaemonClient, _ count: Int) throws(LoadError) {
        let deadline = Time.now() + 30_000_000_000
        while Time.now() < deadline {
            if case .int(let n)? = try call(&client, "GetStatistics")["observers"], n >= count { return }
            usleep(10_000)  // polling a counter in a benchmark harness, bounded by the deadline
        }
        throw .timeout("\(count) observers to register")
    }

    /// The daemon clock's zero on CLOCK_BOOTTIME, in nanoseconds.
    private func clockOrigin(_ client: inout DaemonClient) throws(LoadError) -> Int64 {
        guard case .int(let usec)? = try call(&client, "GetStatus")["clock_origin_usec"] else {
            throw .daemon("GetStatus has no clock_origin_usec")
        }
        return usec * 1000
    }
}

/// When each observer saw each launch reach each state.
final class StateLog: Sendable {
    private struct State {
        var seen: [String: Int64] = [:]
        /// The event's own `time` (daemon seconds), by the same key.
        var daemonTimes: [String: Double] = [:]
        var revealedBy = Set<Int>()
    }
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)

    func record(_ message: UnsafeRawBufferPointer, arrived: Int64, observer: Int) {
        guard message.contains(#""kind":"state""#), let launch = message.number(after: #""launch":"#) else { return }
        for to: StaticString in [
            #""to":"presenting""#, #""to":"holding""#, #""to":"revealing""#, #""to":"revealed""#, #""to":"failed""#,
            #""to":"cancelled""#,
        ]
        where message.contains(to) {
            let name = String(describing: to).split(separator: "\"").last.map(String.init) ?? ""
            state.withLock { s in
                if s.seen["\(Int(launch)) \(name)"] == nil {
                    s.seen["\(Int(launch)) \(name)"] = arrived
                    s.daemonTimes["\(Int(launch)) \(name)"] = message.number(after: #""time":"#)
                }
                if name == "revealed" || name == "failed" || name == "cancelled" { s.revealedBy.insert(observer) }
            }
            signal.signal()
        }
    }

    /// The daemon time the event of `launch` reaching `to` carried (once seen).
    func daemonTime(_ launch: UInt64, _ to: String) -> Double? {
        state.withLock { $0.daemonTimes["\(launch) \(to)"] }
    }

    /// When the first observer saw `launch` reach `to`; fails after 30 s.
    func wait(_ launch: UInt64, _ to: String) throws(LoadError) -> Int64 {
        let key = "\(launch) \(to)"
        while true {
            if let seen = state.withLock({ $0.seen[key] }) { return seen }
            if let failed = state.withLock({ s in ["failed", "cancelled"].first { s.seen["\(launch) \($0)"] != nil } })
            {
                throw .daemon("launch \(launch) \(failed)")
            }
            guard signal.wait(timeout: .now() + 30) == .success else { throw .timeout("launch \(launch) to be \(to)") }
        }
    }

    /// Until `observers` observers have seen a launch end.
    func waitAll(_ observers: Int) throws(LoadError) {
        while state.withLock({ $0.revealedBy.count }) < observers {
            guard signal.wait(timeout: .now() + 30) == .success else {
                throw .timeout("every observer to see the launch end")
            }
        }
    }

    func reset() { state.withLock { $0 = State() } }
}

/// Frame delivery per observer: lateness against the scheduled time, and frames that never
/// arrived between two that did (skipped by the clock or coalesced for the observer).
final class Pacing: @unchecked Sendable {
    // Touched only by the pool's one thread until `json()` runs after it stopped.
    private var lateness: [Double] = []
    private var last: [(launch: Int, transition: Bool, index: Int)?]
    private var missing = 0
    private var frames = 0
    private let origin: Int64

    init(observers: Int, origin: Int64) {
        last = Array(repeating: nil, count: observers)
        self.origin = origin
        lateness.reserveCapacity(1 << 20)
    }

    func frame(_ observer: Int, arrived: Int64, _ message: UnsafeRawBufferPointer) {
        guard let time = message.number(after: #""time":"#), let index = message.number(after: #""frame":"#),
            let launch = message.number(after: #""launch":"#)
        else { return }
        frames += 1
        let reveal = message.contains(#""transition":"reveal""#)
        if message.contains(#""final":true"#) {
            last[observer] = nil
            return
        }  // off the grid by design
        lateness.append(Double(arrived - origin - Int64(time * 1e9)) / 1e6)
        if let previous = last[observer], previous.launch == Int(launch), previous.transition == reveal,
            Int(index) > previous.index + 1
        {
            missing += Int(index) - previous.index - 1
        }
        last[observer] = (Int(launch), reveal, Int(index))
    }

    func json() -> [String: JSONValue] {
        [
            "unit": "ms", "frames_received": .int(Int64(frames)), "frames_missing": .int(Int64(missing)),
            "lateness": .object(Summary(lateness).json()),
        ]
    }
}

enum Fifo {
    static func write(_ path: String, _ text: String) throws(LoadError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)  // blocks until the app opens it for reading
        guard fd >= 0 else { throw .system("open \(path)", errno) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else { throw .system("write \(path)", errno) }
    }

    static func read(_ path: String) throws(LoadError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)  // blocks until the app opens it for writing
        guard fd >= 0 else { throw .system("open \(path)", errno) }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("read \(path)", errno)
            }
            if n == 0 { return String(decoding: out, as: UTF8.self) }
            out += buffer[0..<n]
        }
    }
}

enum Spawn {
    /// The floor of starting an app: posix_spawn and waitpid of /bin/true. `session`: in a
    /// session of its own, as curtaind starts every app (with the kernel's autogroup
    /// scheduling, each new session is a new scheduling group: a cost of its own).
    static func trueAndWait(session: Bool = false) throws(LoadError) {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { argv.forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if session { posix_spawnattr_setflags(&attributes, 0x80) }  // POSIX_SPAWN_SETSID (a GNU extension)
        let status = posix_spawn(&pid, "/bin/true", nil, &attributes, argv, environ)
        guard status == 0 else { throw .system("posix_spawn /bin/true", status) }
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) < 0 { guard errno == EINTR else { throw .system("waitpid", errno) } }
    }
}
