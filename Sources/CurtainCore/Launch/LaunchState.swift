/// Where a launch is. `requested` only lasts while a launch waits in the queue; the others
/// follow the overlay: up (presenting), waiting for the app (holding), lifting (revealing).
public enum LaunchState: String, Sendable, Hashable, CaseIterable {
    case requested, presenting, holding, revealing, revealed, failed, cancelled

    public var isEnded: Bool { self == .revealed || self == .failed || self == .cancelled }
}

/// How far an app has come, from its sd_notify messages: `X_CURTAIN_STAGE=skeleton|content|
/// interactive`, or `READY=1`, which satisfies every requirement.
public enum ReadinessStage: String, Sendable, Hashable, CaseIterable, Comparable {
    case skeleton, content, interactive, ready

    private var rank: Int {
        switch self {
        case .skeleton: 1
        case .content: 2
        case .interactive: 3
        case .ready: 4
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}
