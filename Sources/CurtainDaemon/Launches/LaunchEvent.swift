import CurtainCore

/// What the driver tells observers, typed: the wire format (io.curtain.Launcher's JSON) is
/// made from it in `Interface/` only, as NIO's `HTTPServerResponsePart` is turned into bytes
/// by the encoder and not by the handler that writes it.
enum LaunchEvent: Sendable, Hashable {
    /// A launch changed state.
    case state(LaunchTransition)
    /// A launch's destination changed (a fallback, a retarget).
    case destination(launch: LaunchID, Destination, reason: String, time: Double)
    /// One frame of a transition (see `LaunchFrame`).
    case frame(LaunchFrame)

    var launch: LaunchID {
        switch self {
        case .state(let transition): transition.launch
        case .destination(let launch, _, _, _): launch
        case .frame(let frame): frame.launch
        }
    }

    /// Whether it is its launch's last event (the launch ended): a stream of one launch ends with it.
    var endsLaunch: Bool {
        if case .state(let transition) = self { transition.to.isEnded } else { false }
    }
}

/// A frame: every slot of the transition's timeline ("layer.property") with its value at `time`.
struct LaunchFrame: Sendable, Hashable {
    let launch: LaunchID
    /// The frame's index on the display's grid (k / fps).
    let index: Int
    /// Daemon time the frame is for.
    let time: Double
    let transition: Presentation.Transition
    /// The timeline's slot keys, parallel to `values` (shared by every frame of a transition).
    let keys: [String]
    let values: [Value]
    /// How far into the transition, 0...1.
    let progress: Double
    /// The reveal's exact end state, sent when the overlay is hidden with `retain`.
    var final = false
}

/// Why the driver refused an input. Mapped to io.curtain.Launcher's (and io.curtain.App's)
/// errors at the interface (`LauncherErrors.from`), once, as Hummingbird maps an
/// `HTTPResponseError` at its boundary.
enum LaunchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The daemon is stopping: no new launch.
    case shuttingDown
    /// The route does not resolve, or is malformed.
    case route(RouteError)
    /// The configured transitions do not compile.
    case transitions(String)
    case noSuchLaunch(LaunchID)
    /// Another launch holds the display and the policy is `reject`.
    case busy(holder: LaunchID)
    /// A Control action that does not apply now.
    case invalidControl(String)

    var description: String {
        switch self {
        case .shuttingDown: "the daemon is stopping"
        case .route(let error): error.description
        case .transitions(let reason): "the transitions do not compile: \(reason)"
        case .noSuchLaunch(let id): "no launch \(id)"
        case .busy(let holder): "launch \(holder) holds the display"
        case .invalidControl(let reason): reason
        }
    }
}
