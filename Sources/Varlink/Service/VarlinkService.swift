import Synchronization

/// A Varlink service: interfaces, their method handlers, and `org.varlink.service`.
///
/// Transport-independent: a transport decodes calls, hands each to `handle(_:peer:send:)` in
/// the order they arrived, and writes what `send` is given. All protocol rules — lookup, type
/// checking of calls and replies, `more`/`continues`, `oneway`, `upgrade`, ExpectedMore — are
/// enforced here, so every transport behaves alike and the rules are tested without sockets.
public final class VarlinkService: Sendable {
    /// What GetInfo reports about the service (the interfaces are added by the service).
    public struct Info: Sendable, Hashable {
        /// Who makes the service.
        public var vendor: String
        /// The service's name.
        public var product: String
        /// The service's version, free-form.
        public var version: String
        /// Where to learn more about the service.
        public var url: String
        /// The strings GetInfo reports as they are.
        public init(vendor: String, product: String, version: String, url: String) {
            self.vendor = vendor
            self.product = product
            self.version = version
            self.url = url
        }
    }

    /// A transport's way to give a streaming call its connection's socket: fanning one frame
    /// out to 1000 subscribers then costs one non-blocking write each, made by whoever
    /// produces the frame — not a task switch, an event-loop hop and a pipeline pass each.
    public struct DirectWriter: Sendable {
        /// Waits until every reply sent before is written, then returns the call's output: from
        /// then on every reply of the call (those sent through `Reply` too) goes through it, in
        /// order — and a transport may keep it for the connection's later calls. Nil when the
        /// transport cannot; the call goes on as before.
        public let takeOver: @Sendable () async -> DirectOutput?

        /// A writer for one connection; see `takeOver`.
        public init(takeOver: @escaping @Sendable () async -> DirectOutput?) { self.takeOver = takeOver }
    }

    /// A streaming call's output once taken over (see `DirectWriter`).
    public struct DirectOutput: Sendable {
        /// Queues a whole message (NUL included) behind every one before it and writes what the
        /// socket takes now, on the calling thread. A `replaceable` message (a frame) still
        /// waiting untouched is replaced by the next replaceable one queued right behind it.
        /// False once the output takes nothing more (the peer is gone, the call was cut off).
        public let write: @Sendable (_ message: [UInt8], _ replaceable: Bool) -> Bool
        /// Messages queued that are not replaceable (a subscriber's backlog of events).
        public let queued: @Sendable () -> Int
        /// How long the oldest queued message has waited for the peer; nil if none waits.
        public let waiting: @Sendable () -> Duration?

        /// An output; see the properties.
        public init(
            write: @escaping @Sendable ([UInt8], Bool) -> Bool,
            queued: @escaping @Sendable () -> Int,
            waiting: @escaping @Sendable () -> Duration?
        ) {
            self.write = write
            self.queued = queued
            self.waiting = waiting
        }
    }

    /// What a handler is given: the call (parameters already type-checked) and the caller.
    public struct Request: Sendable {
        /// The call; its parameters match the method's input.
        public let call: VarlinkCall
        /// The caller's process and user, from the socket; nil where the transport cannot tell
        /// (a handler that authorises should then refuse).
        public let peer: PeerCredentials?
        /// Set by transports that can give a streaming call its socket (see DirectWriter).
        public var direct: DirectWriter?
        /// Ends the connection at once with `error` as its last message (written whether or
        /// not the peer reads, then the connection closes): for a subscriber that stopped
        /// reading. A reply the handler is waiting to write then fails.
        public let disconnect: @Sendable (VarlinkError) async -> Void

        /// - Parameters:
        ///   - call: The call, already type-checked.
        ///   - peer: The caller, if the transport knows it.
        ///   - disconnect: How to end the connection with a final error; by default it does nothing,
        ///     for tests and transports without connections.
        public init(
            call: VarlinkCall,
            peer: PeerCredentials?,
            disconnect: @escaping @Sendable (VarlinkError) async -> Void = { _ in }
        ) {
            self.call = call
            self.peer = peer
            self.disconnect = disconnect
        }
    }

    /// Sends replies for one call: `reply(parameters, continues)`. `continues: true` is allowed
    /// only when the call asked for `more`; the last reply has `continues: false`. Replies are
    /// type-checked against the method's output — or checked and encoded once with `prepare`,
    /// for a reply many subscribers get (a frame for 1000 observers).
    public struct Reply: Sendable {
        /// The qualified method this replies to.
        public var method: String { preparer.method }
        /// The method's output check and encoding (shared with replies made outside the call).
        public let preparer: ReplyPreparer
        let send: @Sendable (VarlinkReply) async throws -> Void
        /// Marks the call finished; false if it already was.
        let finish: @Sendable () -> Bool

        /// Sends one reply.
        /// - Parameters:
        ///   - parameters: The reply's parameters; checked against the method's output.
        ///   - continues: True if more replies follow (only for a call with `more`); false for the last.
        /// - Throws: If the parameters do not match the output, the reply breaks the rules (`continues`
        ///   without `more`, a reply after the final one), or the transport could not write it.
        public func callAsFunction(_ parameters: [String: JSONValue], _ continues: Bool) async throws {
            try preparer.check(parameters)
            try await send(VarlinkReply(parameters: parameters, continues: continues))
        }

        /// Checks `parameters` against this method's output and encodes them, once.
        public func prepare(_ parameters: [String: JSONValue]) throws -> PreparedParameters {
            try preparer.prepare(parameters)
        }

        /// Sends one reply prepared with `prepare(_:)`, without checking or encoding it again.
        /// - Throws: If `prepared` was made for another method, the reply breaks the rules (`continues`
        ///   without `more`, a reply after the final one), or the transport could not write it.
        public func callAsFunction(_ prepared: PreparedParameters, _ continues: Bool) async throws {
            guard prepared.method == method else {
                throw ReplyMisuse("parameters prepared for \(prepared.method), not \(method)")
            }
            try await send(VarlinkReply(prepared: prepared.bytes, continues: continues))
        }

        /// The call's final reply as a whole message (NUL included) for the call's
        /// `DirectOutput`, which the caller writes: from now on the call is finished (a later
        /// reply is refused, and the handler returns without sending one). Nil if it already
        /// was (its final reply or an error has gone out) or `prepared` was made for another
        /// method. For a stream whose last item is written by whoever publishes it, on that
        /// thread, like every item before it.
        public func final(_ prepared: PreparedParameters) -> [UInt8]? {
            guard prepared.method == method, finish() else { return nil }
            return prepared.message(continues: false)
        }
    }

    /// Checks and encodes replies to one method outside any call: what `Reply.prepare` does,
    /// for a reply made before a call needs it (a frame encoded ahead of its deadline, then
    /// shared by every subscriber of the method).
    public struct ReplyPreparer: Sendable {
        /// The qualified method whose output the parameters are checked against.
        public let method: String
        let interface: VarlinkInterface
        let output: [Field]

        /// Checks `parameters` against the method's output and encodes them, once.
        public func prepare(_ parameters: [String: JSONValue]) throws -> PreparedParameters {
            try check(parameters)
            return PreparedParameters(method: method, bytes: JSONWriter.bytes(.object(parameters)))
        }

        func check(_ parameters: [String: JSONValue]) throws(ReplyMisuse) {
            do { try interface.check(.object(parameters), against: output) } catch {
                throw ReplyMisuse("reply does not match \(method)'s output: \(error)")
            }
        }
    }

    /// A preparer for replies to `method` (qualified: "org.example.Interface.Method"); nil if
    /// the service has no such method.
    public func replyPreparer(for method: String) -> ReplyPreparer? {
        guard let dot = method.lastIndex(of: "."), let registered = interfaces[String(method[..<dot])],
            let member = registered.interface.method(named: String(method[method.index(after: dot)...]))
        else { return nil }
        return ReplyPreparer(method: method, interface: registered.interface, output: member.output)
    }

    /// Reply parameters checked against one method's output and encoded.
    public struct PreparedParameters: Sendable {
        /// The qualified method they were checked against; only its replies may carry them.
        public let method: String
        let bytes: [UInt8]

        /// The whole reply message, NUL included, for a DirectOutput.
        public func message(continues: Bool) -> [UInt8] {
            VarlinkReply(prepared: bytes, continues: continues).encoded()
        }
    }

    /// A method's implementation: it sends its replies through `Reply` and returns after the final
    /// one. A thrown `VarlinkError` becomes the error reply; any other error becomes InternalError,
    /// as does returning without a final reply.
    public typealias Handler = @Sendable (Request, Reply) async throws -> Void

    /// A registered method's behaviour beyond its handler.
    public struct MethodOptions: Sendable, Hashable {
        /// Answer ExpectedMore unless called with `more: true` (a subscription).
        public var requiresMore: Bool
        /// Accept `upgrade: true` (the connection then belongs to the handler's protocol).
        public var supportsUpgrade: Bool
        /// By default a method takes plain calls and no `upgrade`.
        public init(requiresMore: Bool = false, supportsUpgrade: Bool = false) {
            self.requiresMore = requiresMore
            self.supportsUpgrade = supportsUpgrade
        }
    }

    struct Registered: Sendable {
        var interface: VarlinkInterface
        var text: String
        var handlers: [String: (Handler, MethodOptions)]
    }

    /// What GetInfo reports.
    public let info: Info
    private let interfaces: [String: Registered]

    /// Builds a service from its interfaces. `org.varlink.service` is added automatically.
    ///
    /// Two builders for the same interface name: the later one wins.
    /// - Throws: `IDLError` if an interface's text does not parse.
    public init(info: Info, interfaces builders: [InterfaceBuilder]) throws(IDLError) {
        self.info = info
        var registered: [String: Registered] = [:]
        for builder in builders {
            let interface = try VarlinkInterface(parsing: builder.text)
            registered[interface.name] = Registered(
                interface: interface,
                text: builder.text,
                handlers: builder.handlers
            )
        }
        let serviceInterface = try VarlinkInterface(parsing: ServiceInterface.text)
        registered[serviceInterface.name] = Registered(
            interface: serviceInterface,
            text: ServiceInterface.text,
            handlers: [:]
        )
        interfaces = registered
    }

    /// Interface names, sorted (as GetInfo lists them).
    public var interfaceNames: [String] { interfaces.keys.sorted() }

    /// The parsed definition of a registered interface (`org.varlink.service` included); nil if
    /// there is none of that name.
    public func interface(named name: String) -> VarlinkInterface? { interfaces[name]?.interface }

    /// Handles one call. `send` is called for each reply (never for a oneway call); the final
    /// reply has `continues == false`. Returns when the call is complete. Never throws: every
    /// failure becomes an error reply, except a failure of `send` itself, which ends the call.
    public func handle(
        _ call: VarlinkCall,
        peer: PeerCredentials?,
        send: @escaping @Sendable (VarlinkReply) async throws -> Void,
        disconnect: @escaping @Sendable (VarlinkReply) async -> Void = { _ in },
        direct: DirectWriter? = nil
    ) async {
        let deliver: @Sendable (VarlinkReply) async throws -> Void = { reply in
            if !call.oneway { try await send(reply) }
        }
        do {
            try await dispatch(
                call,
                peer: peer,
                deliver: deliver,
                disconnect: disconnect,
                direct: call.oneway ? nil : direct
            )
        } catch let error as VarlinkError {
            try? await deliver(.error(error.name, error.parameters))
        } catch is ReplyFailed {
            // The transport could not write: the connection is going away.
        } catch is CancellationError {
            // The server is shutting down: end the call (and any stream) with a final reply.
            try? await deliver(.error(VarlinkError.shuttingDownName))
        } catch {
            try? await deliver(.error(VarlinkError.internalErrorName))
        }
    }

    private func dispatch(
        _ call: VarlinkCall,
        peer: PeerCredentials?,
        deliver: @escaping @Sendable (VarlinkReply) async throws -> Void,
        disconnect: @escaping @Sendable (VarlinkReply) async -> Void,
        direct: DirectWriter?
    ) async throws {
        let interfaceName = String(call.interface)
        guard let registered = interfaces[interfaceName] else { throw VarlinkError.interfaceNotFound(interfaceName) }
        let memberName = String(call.member)
        guard let method = registered.interface.method(named: memberName) else {
            throw VarlinkError.methodNotFound(call.method)
        }

        if interfaceName == ServiceInterface.name {
            try checkParameters(call, method, registered.interface)
            try await deliver(VarlinkReply(parameters: try serviceMethod(memberName, call)))
            return
        }
        guard let (handler, options) = registered.handlers[memberName] else {
            throw VarlinkError.methodNotImplemented(call.method)
        }
        try checkParameters(call, method, registered.interface)
        if call.upgrade && !options.supportsUpgrade { throw VarlinkError.invalidParameter("upgrade") }
        if options.requiresMore && !call.more && !call.oneway { throw VarlinkError.expectedMore }

        let tracker = ReplyTracker()
        var request = Request(call: call, peer: peer) { error in
            guard tracker.finish() else { return }
            await disconnect(.error(error.name, error.parameters))
        }
        if call.more { request.direct = direct }
        let reply = Reply(
            preparer: ReplyPreparer(method: call.method, interface: registered.interface, output: method.output),
            send: { reply in
                guard !tracker.finished else { throw ReplyMisuse("a reply after the final one") }
                if reply.continues && !call.more { throw ReplyMisuse("continues without more") }
                if !reply.continues, !tracker.finish() { throw ReplyMisuse("a reply after the final one") }
                do { try await deliver(reply) } catch { throw ReplyFailed() }
            },
            finish: { tracker.finish() }
        )
        try await handler(request, reply)
        if !tracker.finished { throw ReplyMisuse("the handler returned without a final reply") }
    }

    private func checkParameters(
        _ call: VarlinkCall,
        _ method: Method,
        _ interface: VarlinkInterface
    ) throws(VarlinkError) {
        do { try interface.check(.object(call.parameters), against: method.input) } catch {
            throw VarlinkError.invalidParameter(error.parameter)
        }
    }

    private func serviceMethod(_ name: String, _ call: VarlinkCall) throws(VarlinkError) -> [String: JSONValue] {
        switch name {
        case "GetInfo":
            return [
                "vendor": .string(info.vendor), "product": .string(info.product), "version": .string(info.version),
                "url": .string(info.url), "interfaces": .array(interfaceNames.map { .string($0) }),
            ]
        case "GetInterfaceDescription":
            guard case .string(let requested)? = call.parameters["interface"] else {
                throw VarlinkError.invalidParameter("interface")
            }
            guard let registered = interfaces[requested] else { throw VarlinkError.interfaceNotFound(requested) }
            return ["description": .string(registered.text)]
        default:
            throw VarlinkError.methodNotImplemented(call.method)
        }
    }
}

/// A handler broke the reply rules: a programming error, answered with InternalError.
struct ReplyMisuse: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The transport failed to send: the call ends without further replies.
struct ReplyFailed: Error {}

/// Whether a call's final reply has gone out (a handler may reply from several tasks).
private final class ReplyTracker: Sendable {
    private let state = Mutex(false)
    var finished: Bool { state.withLock { $0 } }
    /// Marks the call finished; false if it already was.
    func finish() -> Bool {
        state.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
