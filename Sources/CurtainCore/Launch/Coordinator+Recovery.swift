extension Coordinator {
    /// Puts a launch that ended elsewhere into the history, so `Get` and `List` answer how it
    /// ended: a launch a previous daemon had in flight when it died ("daemon restarted").
    /// It never takes the overlay or the queue, and emits no effects. Refused (false) when
    /// `state` is not an end state or the id is already known.
    @discardableResult
    public mutating func recordEnded(
        _ id: LaunchID,
        route: Route,
        destination: Destination,
        state: LaunchState,
        reason: String,
        requestedAt: Double,
        endedAt: Double
    ) -> Bool {
        guard state.isEnded, launch(id) == nil else { return false }
        record(
            Launch(
                id: id,
                route: route,
                destination: destination,
                state: state,
                reason: reason,
                requestedAt: requestedAt,
                changedAt: endedAt
            )
        )
        return true
    }
}
