import CSystemdBus
import Dispatch
import Synchronization
import Systemd
import Threads

#if canImport(Glibc)
import Glibc
#endif

/// systemd's manager on the system bus (sd-bus, through `CSystemdBus`): method calls on one
/// connection, signals on another that a thread of its own reads. sd-bus connections are not
/// thread-safe: the calls' connection is used under a lock on a queue of its own (a call
/// blocks for a round trip, never a cooperative thread), the signals' only by its thread.
final class SystemdBus: Sendable {
    enum Signal: Sendable {
        case properties(path: String, UnitState)
        case jobRemoved(unit: String, result: String)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// How long the signal thread waits for traffic before it looks whether it should stop.
    static let pollInterval: UInt64 = 200_000  // µs

    let signals: AsyncStream<Signal>
    private let calls: Mutex<OpaquePointer?>
    private let queue = DispatchQueue(label: "curtain.systemd-bus")
    private let sink: Sink

    /// The signal thread's end of `signals` (the C callback's context) and its stop flag.
    final class Sink: Sendable {
        let continuation: AsyncStream<Signal>.Continuation
        let stopping = Atomic(false)
        init(_ continuation: AsyncStream<Signal>.Continuation) { self.continuation = continuation }
    }

    init() throws {
        var call: OpaquePointer?
        var watch: OpaquePointer?
        var r = curtain_bus_open_system(&call)
        if r == -ELIBACC {
            throw Failure(description: "cannot load sd-bus: \(String(cString: curtain_bus_library_error()))")
        }
        guard r >= 0 else { throw Failure(description: "cannot connect to the system bus: \(POSIX.errorText(-r))") }
        r = curtain_bus_open_system(&watch)
        guard r >= 0, let watch else {
            curtain_bus_close(call)
            throw Failure(description: "cannot connect to the system bus: \(POSIX.errorText(-r))")
        }
        calls = Mutex(call)
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self)
        signals = stream
        sink = Sink(continuation)
        var error = [CChar](repeating: 0, count: 512)
        r = curtain_bus_subscribe(
            watch,
            { kind, name, state, jobResult, context in
                guard let context, let name else { return }
                let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                if kind == Int32(CURTAIN_BUS_PROPERTIES.rawValue), let state {
                    sink.continuation.yield(.properties(path: String(cString: name), SystemdBus.state(state.pointee)))
                } else if kind == Int32(CURTAIN_BUS_JOB_REMOVED.rawValue), let jobResult {
                    sink.continuation.yield(
                        .jobRemoved(unit: String(cString: name), result: String(cString: jobResult))
                    )
                }
            },
            Unmanaged.passUnretained(sink).toOpaque(),
            &error,
            error.count
        )
        guard r >= 0 else {
            curtain_bus_close(watch)
            calls.withLock { curtain_bus_close($0) }
            throw Failure(description: "cannot subscribe to systemd's signals: \(String(cString: error))")
        }
        let watchBus = UnsafeSendable(watch)
        let sink = self.sink
        let started = DetachedThread.start(name: "systemd-bus") {
            // Retains the sink (the callback's context) for as long as the connection lives.
            while !sink.stopping.load(ordering: .acquiring), curtain_bus_process(watchBus.value, Self.pollInterval) >= 0
            {}
            curtain_bus_close(watchBus.value)
            sink.continuation.finish()
        }
        guard started else {
            curtain_bus_close(watch)
            calls.withLock {
                curtain_bus_close($0)
                $0 = nil
            }
            throw Failure(description: "cannot start the thread that reads systemd's signals")
        }
    }

    deinit {
        calls.withLock {
            curtain_bus_close($0)
            $0 = nil
        }
    }

    /// Ends the signal thread (within `pollInterval`) and with it `signals`.
    func stop() { sink.stopping.store(true, ordering: .releasing) }

    /// StartUnit, StopUnit or RestartUnit with `mode`; throws systemd's error.
    func job(_ method: String, _ unit: String, mode: String = "replace") async throws {
        try await onQueue { bus in
            var error = [CChar](repeating: 0, count: 512)
            let r = curtain_bus_unit_job(bus, method, unit, mode, &error, error.count)
            if r < 0 { throw Failure(description: String(cString: error)) }
        }
    }

    /// The unit's ActiveState, SubState, Result and ExecMain* as systemd has them now.
    func state(_ unit: String) async throws -> UnitState {
        try await onQueue { bus in
            var error = [CChar](repeating: 0, count: 512)
            var state = curtain_unit_state()
            let r = curtain_bus_unit_state(bus, unit, &state, &error, error.count)
            if r < 0 { throw Failure(description: String(cString: error)) }
            return Self.state(state)
        }
    }

    /// The object path of the unit `pid` runs in (GetUnitByPID); throws for a process that is
    /// gone or in no unit.
    func unitPath(ofPID pid: pid_t) async throws -> String {
        try await onQueue { bus in
            var error = [CChar](repeating: 0, count: 512)
            var path = [CChar](repeating: 0, count: 1024)
            let r = curtain_bus_unit_by_pid(bus, UInt32(bitPattern: pid), &path, path.count, &error, error.count)
            if r < 0 { throw Failure(description: String(cString: error)) }
            return String(cString: path)
        }
    }

    /// The object path systemd names `unit` by in its signals.
    static func path(of unit: String) -> String? {
        guard let path = curtain_bus_unit_path(unit) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer?) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.calls.withLock { try body($0) } })
            }
        }
    }

    private static func state(_ raw: curtain_unit_state) -> UnitState {
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        var state = UnitState()
        if raw.has_active != 0 { state.activeState = text(raw.active_state) }
        if raw.has_sub != 0 { state.subState = text(raw.sub_state) }
        if raw.has_result != 0 { state.result = text(raw.result) }
        if raw.has_exec_main != 0 {
            state.execMainCode = raw.exec_main_code
            state.execMainStatus = raw.exec_main_status
        }
        return state
    }
}

/// A C handle owned by one thread from here on.
private struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
