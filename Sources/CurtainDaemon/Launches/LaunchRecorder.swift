import CurtainCore
import Logging

/// What is kept of launches besides the coordinator: the journal's lines (with their
/// MESSAGE_IDs, `LogEvent`) and the counts and reveal times of io.curtain.Launcher.GetStatistics.
struct LaunchRecorder: Sendable {
    let logger: Logger
    private(set) var statistics = Statistics()

    init(logger: Logger) { self.logger = logger }

    /// A Launch's decision.
    mutating func requested() { statistics.requested += 1 }
    mutating func decided(_ decision: LaunchDecision) {
        switch decision {
        case .started: statistics.started += 1
        case .queued: statistics.queued += 1
        case .merged: statistics.merged += 1
        case .busy: statistics.busy += 1
        }
    }

    /// An app reported `stage` for `launch` at `time`.
    func appReady(_ launch: Launch, stage: ReadinessStage, at time: Double) {
        logger.log(
            .appReady,
            "app ready",
            [
                "curtain_launch_id": "\(launch.id)", "curtain_app": "\(launch.destination.app)",
                "curtain_stage": "\(stage.rawValue)",
                "curtain_duration_usec": "\(Int((time - launch.requestedAt) * 1_000_000))",
            ]
        )
    }

    /// A state change of `launch` (nil when the coordinator no longer has it).
    mutating func record(_ transition: LaunchTransition, of launch: Launch?) {
        // Built only for a line that is logged: two of a launch's five transitions are at debug
        // level (swift-log evaluates their metadata only when that level is on).
        func fields() -> Logger.Metadata {
            var fields: Logger.Metadata = [
                "curtain_launch_id": "\(transition.launch)", "curtain_state": "\(transition.to.rawValue)",
                "curtain_reason": "\(transition.reason)",
            ]
            if let launch {
                fields["curtain_app"] = "\(launch.destination.app)"
                fields["curtain_route"] = "\(launch.route)"
                fields["curtain_duration_usec"] = "\(Int((transition.time - launch.requestedAt) * 1_000_000))"
            }
            return fields
        }
        switch (transition.from, transition.to) {
        case (nil, .requested): logger.log(.launchRequested, "launch requested", fields())
        case (.presenting, .holding): logger.log(.launchPresented, "overlay presented", fields())
        case (_, .revealed):
            logger.log(.launchRevealed, "launch revealed", fields())
            if let launch { statistics.revealed(after: transition.time - launch.requestedAt) }
        case (_, .failed):
            logger.log(.launchFailed, "launch failed: \(transition.reason)", fields())
            statistics.failed += 1
        case (_, .cancelled):
            logger.log(.launchCancelled, "launch cancelled: \(transition.reason)", fields())
            statistics.cancelled += 1
        default:
            logger.debug("launch \(transition.from?.rawValue ?? "-") → \(transition.to.rawValue)", metadata: fields())
        }
    }
}
