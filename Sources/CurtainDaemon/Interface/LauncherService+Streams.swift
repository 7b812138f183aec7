import CurtainCore
import NIOCore
import NIOPosix
import Varlink

/// How a subscription's items reach its caller: the Watch and Launch streams, and the sinks
/// that write an item to the caller's socket on the thread that publishes it.
extension LauncherService {
    /// A Watch's replies after its snapshot. Where the transport gives the call its socket,
    /// whoever publishes (the frame loop, the driver) writes each reply to it at once — no task
    /// switch per observer and frame; the stream then sends only what queued while it was busy
    /// and, for one launch, the final reply. Elsewhere the stream sends everything.
    static func watch(
        _ mailbox: ObserverMailbox,
        only: LaunchID?,
        limit: Int,
        grace: Double,
        request: VarlinkService.Request,
        reply: VarlinkService.Reply
    ) async throws {
        let output = await request.direct?.takeOver()
        if let output { mailbox.attach(sink(output, only: only, limit: limit, reply: reply)) }
        try await stream(
            mailbox,
            only: only,
            grace: grace,
            request: request,
            stalled: { output?.waiting().map { $0 > .seconds(grace) } ?? false },
            frame: { shared in try await reply(try shared.prepared(for: reply), true) },
            send: { event, last in try await reply(["event": .object(event)], !last) }
        )
    }

    /// Writes a Watch's items to its socket: frames replaceable (a stalled peer keeps only the
    /// newest waiting), events never dropped — past `limit` of them waiting, it is cut off.
    static func sink(
        _ output: VarlinkService.DirectOutput,
        only: LaunchID?,
        limit: Int,
        reply: VarlinkService.Reply
    ) -> ObserverMailbox.Sink {
        let method = SharedFrame.interned(reply.method)
        return { item, shared in
            switch item {
            case .frame(let frame):
                // A frame that fails to encode is skipped, as it always was.
                guard let message = try? frame.message(for: reply, method: method) else { return .taken }
                return output.write(message, true) ? .taken : .cutOff
            case .event(let event):
                if only != nil, event.endsLaunch {
                    guard let prepared = try? reply.prepare(["event": .object(Wire.event(event))]) else {
                        return .refused
                    }
                    return finish(output, reply, prepared)
                }
                guard let message = try? (shared ?? SharedEvent(event)).message(for: reply, method: method) else {
                    return .refused
                }
                return output.write(message, false) && output.queued() <= limit ? .taken : .cutOff
            }
        }
    }

    /// Writes `prepared` as the call's final reply (a sink's last item); `.refused` if the call
    /// has ended already, so the stream sends nothing either.
    private static func finish(
        _ output: VarlinkService.DirectOutput,
        _ reply: VarlinkService.Reply,
        _ prepared: VarlinkService.PreparedParameters
    ) -> ObserverMailbox.Delivery {
        guard let message = reply.final(prepared) else { return .refused }
        return output.write(message, false) ? .finished : .cutOff
    }

    /// Writes a Launch call's events to its socket: each reply `{launch, decision, event}`, the
    /// launch as `state` gives it now (nil: not published, so the stream sends it). Other
    /// launches' items are dropped, as the stream skips them; the launch's last event is the
    /// call's final reply (`Delivery.finished`). Past `limit` replies waiting, the caller is cut off.
    static func launchSink(
        _ output: VarlinkService.DirectOutput,
        launch: LaunchID,
        limit: Int,
        reply: VarlinkService.Reply,
        state: @escaping @Sendable () -> [String: JSONValue]?
    ) -> ObserverMailbox.Sink {
        { item, _ in
            let (event, frame): ([String: JSONValue], Bool)
            switch item {
            case .event(let e):
                guard e.launch == launch else { return .taken }
                (event, frame) = (Wire.event(e), false)
            case .frame(let shared):
                guard shared.frame.launch == launch else { return .taken }
                (event, frame) = (shared.event, true)
            }
            guard var parameters = state() else { return .refused }
            parameters["event"] = .object(event)
            guard let prepared = try? reply.prepare(parameters) else { return .refused }
            if case .event(let e) = item, e.endsLaunch { return finish(output, reply, prepared) }
            // A frame still waiting is replaced by the next (a stalled caller holds one).
            return output.write(prepared.message(continues: true), frame) && output.queued() <= limit ? .taken : .cutOff
        }
    }

    /// Writes an observer's mailbox out. Each reply must be taken within `grace` seconds, or
    /// the observer is disconnected with ObserverTooSlow (also when `stalled` says a reply its
    /// sink wrote waits that long); so is one whose mailbox overflowed.
    /// With `only`, the stream ends with that launch's final state event. `frame`, when
    /// given, sends frames (shared by every observer, so encoded once); otherwise `send` does,
    /// given the event's JSON (a frame's built once for all observers).
    static func stream(
        _ mailbox: ObserverMailbox,
        only: LaunchID?,
        grace: Double,
        request: VarlinkService.Request,
        stalled: @escaping @Sendable () -> Bool = { false },
        frame: (@Sendable (SharedFrame) async throws -> Void)? = nil,
        send: @escaping @Sendable ([String: JSONValue], Bool) async throws -> Void
    ) async throws {
        // One watchdog per stream, not one per reply (a task per frame per observer was the
        // largest cost at 1000 observers): it checks how long the reply in flight has taken.
        let inFlight = SendTimer()
        // An event loop's repeated timer, not a task in Task.sleep: cancelling a Task.sleep
        // leaves its timer (≈ 850 bytes) queued until the deadline, grace / 4 later — one per
        // Launch call with more, so a launch every 100 ms held ≈ 1 MiB per 150 s of grace
        // (issue 18's soak). NIO takes a cancelled timer out of its queue at once.
        let interval = TimeAmount.nanoseconds(Int64(grace / 4 * 1e9))  // the check interval
        let watchdog = MultiThreadedEventLoopGroup.singleton.any().scheduleRepeatedTask(
            initialDelay: interval,
            delay: interval
        ) { task in
            // A reply in flight from the stream, or one waiting on the socket it gave its sink.
            guard inFlight.sending(longerThan: grace) || stalled() else { return }
            task.cancel()
            Task { await request.disconnect(LauncherErrors.observerTooSlow(grace)) }
        }
        defer { watchdog.cancel() }
        // Cancelled when the observer hangs up: its mailbox closes and it is removed.
        while let item = await withTaskCancellationHandler(
            operation: { await mailbox.next() },
            onCancel: { mailbox.close() }
        ) {
            let launch =
                switch item {
                case .event(let e): e.launch
                case .frame(let shared): shared.frame.launch
                }
            if let only, launch != only { continue }
            var last = false
            if only != nil, case .event(let event) = item, event.endsLaunch { last = true }
            if last { mailbox.close() }  // nothing may be written by the sink after the final reply
            inFlight.start()
            switch item {
            case .frame(let shared):
                if let frame { try await frame(shared) } else { try await send(shared.event, last) }
            case .event(let event): try await send(Wire.event(event), last)
            }
            inFlight.stop()
            if last { return }
        }
        if mailbox.finished { return }  // the sink wrote the final reply
        if mailbox.overflowed {
            await request.disconnect(LauncherErrors.observerTooSlow(grace))
            return
        }
        // Closed without an end of its own: the daemon is stopping.
        throw CancellationError()
    }
}
