/// Interactive control of the running transition, with Hero's and UIKit's semantics: seek
/// pauses at a progress, resume carries on, finish plays to the end, cancel plays back to
/// the start — and a launch whose transition is cancelled ends cancelled.
public enum ControlAction: Sendable, Hashable {
    case seek(Double)
    case pause
    case resume
    case finish
    case cancel
}

public enum ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    case noSuchLaunch(LaunchID)
    case ended(LaunchID, LaunchState)
    /// Only `cancel` applies while no transition runs (holding, or queued).
    case noTransition(LaunchID, LaunchState)
    case clock(InteractiveClock.ClockError)

    public var description: String {
        switch self {
        case .noSuchLaunch(let id): "no launch \(id)"
        case .ended(let id, let state): "launch \(id) has already ended (\(state.rawValue))"
        case .noTransition(let id, let state): "launch \(id) is \(state.rawValue): no transition runs to control"
        case .clock(let error): error.description
        }
    }
}

extension Coordinator {
    /// Applies `action` to launch `id` at `t`. On an error nothing changes.
    public mutating func control(
        _ id: LaunchID,
        _ action: ControlAction,
        at t: Double
    ) throws(ControlError) -> [LaunchEffect] {
        var copy = self
        var effects = copy.advance(to: t)
        try copy.apply(action, to: id, at: t, &effects)
        effects += copy.advance(to: t)
        self = copy
        return effects
    }

    private mutating func apply(
        _ action: ControlAction,
        to id: LaunchID,
        at t: Double,
        _ effects: inout [LaunchEffect]
    ) throws(ControlError) {
        if let index = queue.firstIndex(where: { $0.launch.id == id }) {
            guard action == .cancel else { throw .noTransition(id, .requested) }
            var launch = queue.remove(at: index).launch
            launch.state = .cancelled
            launch.reason = "cancelled while queued"
            launch.changedAt = t
            effects.append(
                .transition(.init(launch: id, from: .requested, to: .cancelled, reason: launch.reason, time: t))
            )
            record(launch)
            return
        }
        guard var current = active, current.launch.id == id else {
            if let ended = launch(id) { throw .ended(id, ended.state) }
            throw .noSuchLaunch(id)
        }
        switch current.phase {
        case .holding:
            guard action == .cancel else { throw .noTransition(id, .holding) }
            cancelCurrent("cancelled while holding", at: t, &effects)
        case .presenting(var clock):
            try Self.apply(action, to: &clock, at: t)
            current.phase = .presenting(clock)
            active = current
        case .revealing(var clock):
            try Self.apply(action, to: &clock, at: t)
            current.phase = .revealing(clock)
            active = current
        }
    }

    private static func apply(
        _ action: ControlAction,
        to clock: inout InteractiveClock,
        at t: Double
    ) throws(ControlError) {
        do throws(InteractiveClock.ClockError) {
            switch action {
            case .seek(let progress):
                // Interactive, as in Hero and UIKit: the transition holds still where it is put.
                guard progress.isFinite, (0...1).contains(progress) else {
                    throw InteractiveClock.ClockError.progressOutOfRange(progress)
                }
                try clock.pause(at: t)
                try clock.seek(to: progress, at: t)
            case .pause: try clock.pause(at: t)
            case .resume: try clock.resume(at: t)
            case .finish: try clock.finish(at: t)
            case .cancel: try clock.cancel(at: t)
            }
        } catch {
            throw .clock(error)
        }
    }
}
