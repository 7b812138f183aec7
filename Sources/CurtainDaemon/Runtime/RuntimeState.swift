import CNotify
import CurtainCore
import JSON
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a curtaind that dies without cleaning up leaves for the next one, in the runtime
/// directory (`state.json` beside the lock and the notify socket): the last launch id, the
/// launches in flight, and every app process it started (pid and start time, so a reused pid
/// is never mistaken for one). Rewritten whole whenever it changes, so the next curtaind reads
/// the old state or the new one, never half of one: on a tmpfs (/run, where systemd puts
/// it) in place, by one write of at most a page (see `InPlace`); elsewhere as a temporary
/// file renamed over it.
final class RuntimeState: Sendable {
    static let fileName = "state.json"
    static let version: Int64 = 1

    struct RecordedLaunch: Sendable, Hashable {
        let id: UInt64
        let route: Route
        let destination: Destination
        /// When it was requested, as CLOCK_BOOTTIME microseconds (the daemons' clocks differ).
        let requestedBoottimeMicroseconds: Int64?
    }

    struct RecordedProcess: Sendable, Hashable {
        let launch: UInt64
        let app: String
        let pid: pid_t
        let startTime: UInt64
    }

    struct Contents: Sendable, Hashable {
        var lastLaunchID: UInt64 = 0
        var launches: [RecordedLaunch] = []
        var processes: [RecordedProcess] = []
    }

    /// The file held open on a tmpfs and rewritten in place: one `pwrite` at offset 0 of the
    /// new text padded with spaces to the file's length (JSON allows them), no longer than a
    /// page. A dying process cannot tear such a write (the kernel stops a write for a fatal
    /// signal only between pages), and no temporary file is made, renamed and freed per change:
    /// those were ≈ 8 % of curtaind's CPU in scenario 6 of `make bench` (issue 18). Longer
    /// texts, a failed write and other filesystems take the rename.
    struct InPlace {
        static let limit = 4096
        static let tmpfsMagic = 0x0102_1994
        let fd: Int32
        var length: Int

        /// Writes `bytes` over the file, padded to its length; false (nothing written) when
        /// either is over a page, or when the write failed.
        mutating func rewrite(_ bytes: [UInt8]) -> Bool {
            guard bytes.count <= Self.limit, length <= Self.limit else { return false }
            var padded = bytes
            if bytes.count < length {
                padded.insert(
                    contentsOf: repeatElement(UInt8(ascii: " "), count: length - bytes.count),
                    at: bytes.count - 1
                )
            }
            guard padded.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) == padded.count else {
                return false
            }
            length = padded.count
            return true
        }
    }

    /// The state's text, each launch's and process's JSON kept while it is in the state: a
    /// change encodes only what it adds. (The whole state as a JSONValue tree with sorted keys,
    /// four times per launch, was ≈ 3 % of curtaind's CPU in scenario 6 of `make bench`.) The
    /// same bytes as `JSONWriter.bytes(encode(contents), sortedKeys: true)` and a newline.
    struct Encoder {
        private var launches: [UInt64: (item: RecordedLaunch, json: [UInt8])] = [:]
        private var processes: [pid_t: (item: RecordedProcess, json: [UInt8])] = [:]

        mutating func text(_ contents: Contents) -> [UInt8] {
            var out = Array(#"{"last_launch_id":"#.utf8)
            out += String(contents.lastLaunchID).utf8
            out += #","launches":["#.utf8
            Self.append(contents.launches, key: \.id, cache: &launches, encode: RuntimeState.encode, to: &out)
            out += #"],"processes":["#.utf8
            Self.append(contents.processes, key: \.pid, cache: &processes, encode: RuntimeState.encode, to: &out)
            out += #"],"version":"#.utf8
            out += String(RuntimeState.version).utf8
            out += "}\n".utf8
            return out
        }

        /// `items`' JSON, comma-separated, each from `cache` while it is unchanged; what left
        /// the state leaves the cache (a few entries: nothing is copied per change).
        private static func append<Key: Hashable, Item: Equatable>(
            _ items: [Item],
            key: (Item) -> Key,
            cache: inout [Key: (item: Item, json: [UInt8])],
            encode: (Item) -> JSONValue,
            to out: inout [UInt8]
        ) {
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if let cached = cache[key(item)], cached.item == item {
                    out += cached.json
                } else {
                    let json = JSONWriter.bytes(encode(item), sortedKeys: true)
                    cache[key(item)] = (item, json)
                    out += json
                }
            }
            if cache.count > items.count {
                for stale in cache.keys where !items.contains(where: { key($0) == stale }) { cache[stale] = nil }
            }
        }
    }

    let path: String
    private let state: Mutex<(contents: Contents, file: InPlace?, encoder: Encoder)>

    init(directory: String, contents: Contents = .init()) {
        path = directory + "/" + Self.fileName
        state = Mutex((contents, Self.openInPlace(path), Encoder()))
    }

    deinit {
        state.withLock { if let file = $0.file { close(file.fd) } }
    }

    var current: Contents { state.withLock { $0.contents } }

    /// The launches in flight and the last id given, from the driver.
    func setLaunches(_ launches: [RecordedLaunch], lastID: UInt64) {
        update {
            $0.launches = launches
            $0.lastLaunchID = max($0.lastLaunchID, lastID)
        }
    }

    /// The processes of launch `launch`'s app (empty: none left).
    func setProcesses(launch: UInt64, app: String, _ entries: [ProcessTree.Entry]) {
        update { contents in
            contents.processes.removeAll { $0.launch == launch }
            contents.processes += entries.map {
                RecordedProcess(launch: launch, app: app, pid: $0.pid, startTime: $0.startTime)
            }
        }
    }

    private func update(_ change: (inout Contents) -> Void) {
        // Written under the lock: two writers never interleave their writes out of order.
        state.withLock { state in
            let before = state.contents
            change(&state.contents)
            guard state.contents != before else { return }
            let bytes = state.encoder.text(state.contents)
            if state.file?.rewrite(bytes) == true { return }
            Self.write(bytes, to: path)
            // Too long for one page, or the write failed: renamed over, so opened again.
            if let file = state.file {
                close(file.fd)
                state.file = Self.openInPlace(path)
            }
        }
    }

    // MARK: - The file

    /// The file open for writing in place when it is on a tmpfs, with its length; nil elsewhere.
    static func openInPlace(_ path: String) -> InPlace? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        var status = stat()
        guard curtain_filesystem_type(fd) == InPlace.tmpfsMagic, fstat(fd, &status) == 0 else {
            close(fd)
            return nil
        }
        return InPlace(fd: fd, length: Int(status.st_size))
    }

    static func text(_ contents: Contents) -> [UInt8] {
        JSONWriter.bytes(encode(contents), sortedKeys: true) + [10]
    }

    static func write(_ contents: Contents, to path: String) { write(text(contents), to: path) }

    static func write(_ bytes: [UInt8], to path: String) {
        let temporary = path + ".tmp"
        if POSIX.writeFile(temporary, bytes) == nil { rename(temporary, path) } else { unlink(temporary) }
    }

    enum ReadError: Error, CustomStringConvertible {
        case unreadable(String)
        var description: String {
            switch self {
            case .unreadable(let why): why
            }
        }
    }

    /// The state a predecessor left; nil when there is none.
    static func read(_ path: String) throws(ReadError) -> Contents? {
        guard let data = POSIX.readFile(path) else { return nil }
        let value: JSONValue
        do { value = try JSONParser.parse(data) } catch { throw .unreadable("\(path): \(error)") }
        guard case .int(let version)? = value["version"], version == Self.version else {
            throw .unreadable("\(path): not a version \(Self.version) state file")
        }
        var contents = Contents()
        if case .int(let last)? = value["last_launch_id"], last >= 0 { contents.lastLaunchID = UInt64(last) }
        if case .array(let launches)? = value["launches"] {
            for launch in launches {
                guard case .int(let id)? = launch["id"], id > 0, let route = try? Wire.route(launch["route"]),
                    let destination = decodeDestination(launch["destination"])
                else { continue }
                var requested: Int64?
                if case .int(let usec)? = launch["requested_boottime_usec"] { requested = usec }
                contents.launches.append(
                    RecordedLaunch(
                        id: UInt64(id),
                        route: route,
                        destination: destination,
                        requestedBoottimeMicroseconds: requested
                    )
                )
            }
        }
        if case .array(let processes)? = value["processes"] {
            for process in processes {
                guard case .int(let launch)? = process["launch"], case .string(let app)? = process["app"],
                    case .int(let pid)? = process["pid"], pid > 1, pid <= Int64(Int32.max),
                    case .int(let start)? = process["start_time"], start >= 0
                else { continue }
                contents.processes.append(
                    RecordedProcess(launch: UInt64(max(0, launch)), app: app, pid: pid_t(pid), startTime: UInt64(start))
                )
            }
        }
        return contents
    }

    static func encode(_ contents: Contents) -> JSONValue {
        .object([
            "version": .int(version),
            "last_launch_id": .int(Int64(contents.lastLaunchID)),
            "launches": .array(contents.launches.map(encode)),
            "processes": .array(contents.processes.map(encode)),
        ])
    }

    static func encode(_ launch: RecordedLaunch) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .int(Int64(launch.id)), "route": encode(launch.route),
            "destination": Wire.destination(launch.destination),
        ]
        if let usec = launch.requestedBoottimeMicroseconds { object["requested_boottime_usec"] = .int(usec) }
        return .object(object)
    }

    static func encode(_ process: RecordedProcess) -> JSONValue {
        [
            "launch": .int(Int64(process.launch)), "app": .string(process.app), "pid": .int(Int64(process.pid)),
            "start_time": .int(Int64(process.startTime)),
        ]
    }

    /// A route as io.curtain.Launcher.Launch takes it (so `Wire.route` reads it back).
    static func encode(_ route: Route) -> JSONValue {
        switch route {
        case .normal(let app): ["normal": .string(app)]
        case .deeplink(let url): ["deeplink": .string(url)]
        case .push(let app, let payload):
            app.map { ["push": payload, "push_app": .string($0)] } ?? ["push": payload]
        }
    }

    static func decodeDestination(_ value: JSONValue?) -> Destination? {
        guard case .string(let app)? = value?["app"], case .string(let screen)? = value?["screen"] else { return nil }
        var parameters: [String: RouteParameter] = [:]
        if case .object(let given)? = value?["parameters"] {
            for (key, value) in given { if case .string(let text) = value { parameters[key] = .string(text) } }
        }
        var reason: String?
        if case .string(let text)? = value?["reason"] { reason = text }
        return Destination(app: app, screen: screen, parameters: parameters, reason: reason)
    }
}
