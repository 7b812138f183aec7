import Synchronization

/// A child's output as it arrives, with waiters for a marker in it. A waiter is answered when
/// the marker arrives, when the output ends, or when its own deadline passes.
final class OutputLog: Sendable {
    private struct Waiter {
        let marker: String
        let continuation: CheckedContinuation<Bool, Never>
    }
    private struct State {
        var bytes: [UInt8] = []
        var closed = false
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }
    private let state = Mutex(State())

    var text: String { state.withLock { $0.text } }

    func append(_ chunk: [UInt8]) {
        let answered: [Waiter] = state.withLock { state in
            state.bytes += chunk
            let text = state.text
            let done = state.waiters.filter { text.contains($0.value.marker) }
            for id in done.keys { state.waiters[id] = nil }
            return Array(done.values)
        }
        for waiter in answered { waiter.continuation.resume(returning: true) }
    }

    func close() {
        let remaining: [Waiter] = state.withLock { state in
            state.closed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in remaining { waiter.continuation.resume(returning: false) }
    }

    func wait(for marker: String, within seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            let id: Int? = state.withLock { state in
                if state.text.contains(marker) {
                    continuation.resume(returning: true)
                    return nil
                }
                if state.closed {
                    continuation.resume(returning: false)
                    return nil
                }
                defer { state.nextID += 1 }
                state.waiters[state.nextID] = Waiter(marker: marker, continuation: continuation)
                return state.nextID
            }
            guard let id else { return }
            Task {
                try? await Task.sleep(for: .seconds(seconds))  // ok-sleep: the waiter's deadline
                state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
            }
        }
    }
}
