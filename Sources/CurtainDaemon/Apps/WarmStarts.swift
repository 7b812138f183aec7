import CurtainCore

/// The apps attached through io.curtain.App.Attach, for warm starts: each attachment's
/// stream of deliveries, and which launches were delivered with elements to hide (shown
/// again when the launch ends). Bookkeeping only, owned by `ProcessSupervisor`, which awaits
/// the acknowledgements and decides when to deliver.
struct WarmStarts {
    /// What an attached app's stream carries.
    enum Delivery: Sendable {
        /// A route and its acknowledgement (whether the app's stream took it).
        case delivery(AppDelivery, CheckedContinuation<Bool, Never>)
        /// A launch delivered with elements to hide has ended: show them again.
        case ended(LaunchID, show: [String])
    }

    private var attached: [String: [Int: AsyncStream<Delivery>.Continuation]] = [:]
    /// Launches delivered with elements to hide: to which attachment, and what.
    private var hiding: [LaunchID: (app: String, token: Int, elements: [String])] = [:]
    private var nextAttachment = 0

    /// A new attachment of `app`: its token (for `detach`) and its deliveries.
    mutating func attach(_ app: String) -> (token: Int, deliveries: AsyncStream<Delivery>) {
        nextAttachment += 1
        let (stream, continuation) = AsyncStream.makeStream(of: Delivery.self)
        attached[app, default: [:]][nextAttachment] = continuation
        return (nextAttachment, stream)
    }

    /// `app`'s attachments, newest first: the order deliveries are offered in.
    func streams(of app: String) -> [(token: Int, stream: AsyncStream<Delivery>.Continuation)] {
        (attached[app] ?? [:]).sorted { $0.key > $1.key }.map { ($0.key, $0.value) }
    }

    /// Attachment `token` of `app` took launch `id`, hiding `elements` until it ends.
    mutating func delivered(_ id: LaunchID, app: String, token: Int, hiding elements: [String]) {
        if !elements.isEmpty { hiding[id] = (app, token, elements) }
    }

    /// Launch `id` has ended: the attachment it was delivered to shows its elements again.
    mutating func ended(_ id: LaunchID) {
        guard let (app, token, elements) = hiding.removeValue(forKey: id) else { return }
        // Detached meanwhile: the app is gone, or attaches anew and shows what it likes.
        attached[app]?[token]?.yield(.ended(id, show: elements))
    }

    mutating func detach(_ app: String, _ token: Int) {
        attached[app]?.removeValue(forKey: token)?.finish()
    }

    /// Shutdown: every attachment's stream ends.
    func finishAll() {
        for streams in attached.values { streams.values.forEach { $0.finish() } }
    }
}
