import CurtainCore
import Varlink

/// io.curtain.Launcher's values as JSON: launches, destinations, events, frames, routes.
enum Wire {
    static func destination(_ d: Destination) -> JSONValue {
        var object: [String: JSONValue] = [
            "app": .string(d.app), "screen": .string(d.screen),
            "parameters": .object(d.parameters.mapValues { .string($0.description) }),
        ]
        if let reason = d.reason { object["reason"] = .string(reason) }
        return .object(object)
    }

    static func launch(_ l: Launch, display: String) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .int(Int64(l.id.value)), "display": .string(display), "route": .string(l.route.description),
            "destination": destination(l.destination), "state": .string(l.state.rawValue), "reason": .string(l.reason),
            "requested": .float(l.requestedAt), "changed": .float(l.changedAt),
            "text_variant": .int(Int64(l.textVariant)),
        ]
        if let readiness = l.readiness { object["readiness"] = .string(readiness.rawValue) }
        if let status = l.appStatus { object["app_status"] = .string(status) }
        if let ready = l.readyAt { object["ready"] = .float(ready) }
        return .object(object)
    }

    static func stateEvent(_ t: LaunchTransition) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "kind": "state", "launch": .int(Int64(t.launch.value)), "time": .float(t.time),
            "to": .string(t.to.rawValue), "reason": .string(t.reason),
        ]
        if let from = t.from { object["from"] = .string(from.rawValue) }
        return object
    }

    static func destinationEvent(
        _ launch: LaunchID,
        _ d: Destination,
        reason: String,
        time: Double
    ) -> [String: JSONValue] {
        [
            "kind": "destination", "launch": .int(Int64(launch.value)), "time": .float(time),
            "destination": destination(d), "reason": .string(reason),
        ]
    }

    /// A launch's scene as io.curtain.Launcher's `Scene`.
    static func scene(_ s: LaunchScene, path: String, sha256: String) -> JSONValue {
        let elements = s.elements.mapValues { e in
            JSONValue.array([.float(e.frame.x), .float(e.frame.y), .float(e.frame.width), .float(e.frame.height)])
        }
        return .object([
            "path": .string(path), "sha256": .string(sha256), "appear": .string(s.appear), "reveal": .string(s.reveal),
            "text_variant": .int(Int64(s.textVariant)), "elements": .object(elements),
            "hidden": .array(s.hidden.map { .string($0) }),
        ])
    }

    /// A warm start as io.curtain.App's `Delivery`.
    static func delivery(_ d: AppDelivery) -> JSONValue {
        [
            "launch": .int(Int64(d.launch.value)), "kind": .string(LaunchEnvironment.kind(of: d.route)),
            "screen": .string(d.destination.screen),
            "parameters": .object(d.destination.parameters.mapValues { .string($0.description) }),
            "hide": .array(d.hide.map { .string($0) }),
        ]
    }

    /// An event as io.curtain.Launcher's `LaunchEvent` object.
    static func event(_ event: LaunchEvent) -> [String: JSONValue] {
        switch event {
        case .state(let transition): stateEvent(transition)
        case .destination(let launch, let d, let reason, let time):
            destinationEvent(launch, d, reason: reason, time: time)
        case .frame(let f): frame(f)
        }
    }

    /// A frame: every slot of the timeline as "layer.property" → its components.
    static func frame(_ frame: LaunchFrame) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(frame.keys.count)
        for (key, value) in zip(frame.keys, frame.values) {
            object[key] = .array((0..<value.kind.wireComponentCount).map { .float(value.component($0)) })
        }
        var event: [String: JSONValue] = [
            "kind": "frame", "launch": .int(Int64(frame.launch.value)), "time": .float(frame.time),
            "frame": .int(Int64(frame.index)),
            "transition": .string(frame.transition.rawValue), "values": .object(object),
            "progress": .float(frame.progress),
        ]
        if frame.final { event["final"] = true }
        return event
    }

    /// Reported element frames (`ReportedElementsReader`), a refusal as InvalidParameter naming
    /// the offending value ("elements.logo.width").
    static func elements(_ value: JSONValue?) throws(VarlinkError) -> ReportedElements {
        do { return try ReportedElementsReader.read(value) } catch {
            throw VarlinkError.invalidParameter(error.parameter)
        }
    }

    /// Watch's `fps`, if given: finite and within WireLimits.watchFPS.
    static func watchFPS(_ value: JSONValue?) throws(VarlinkError) -> Double? {
        guard let value, value != .null else { return nil }
        guard case let fps? = value.number, fps.isFinite, WireLimits.watchFPS.contains(fps) else {
            throw VarlinkError.invalidParameter("fps")
        }
        return fps
    }

    /// A Route parameter: exactly one of normal, deeplink and push.
    static func route(_ value: JSONValue?) throws(VarlinkError) -> Route {
        guard case .object(let o)? = value else { throw LauncherErrors.invalidRoute("route must be an object") }
        let given = ["normal", "deeplink", "push"].filter { o[$0] != nil && o[$0] != .null }
        guard given.count == 1 else {
            throw LauncherErrors.invalidRoute("set exactly one of normal, deeplink and push (got \(given.count))")
        }
        switch given[0] {
        case "normal":
            guard case .string(let app)? = o["normal"], !app.isEmpty else {
                throw LauncherErrors.invalidRoute("normal must name an app")
            }
            return .normal(app: app)
        case "deeplink":
            guard case .string(let url)? = o["deeplink"] else {
                throw LauncherErrors.invalidRoute("deeplink must be a string")
            }
            return .deeplink(url)
        default:
            var app: String?
            if case .string(let named)? = o["push_app"] { app = named }
            return .push(app: app, payload: o["push"]!)
        }
    }
}

extension Value.Kind {
    /// Components on the wire: all of `Value.components` (a transform's rotationY and m34
    /// included: seed 001's flip turns about the y axis, and a renderer must see it).
    var wireComponentCount: Int {
        switch self {
        case .scalar: 1
        case .point, .size: 2
        case .rect, .color: 4
        case .transform: 7
        }
    }
}

/// io.curtain.App's errors.
enum AppErrors {
    static let prefix = "io.curtain.App."
    /// The driver's refusals in io.curtain.App's terms (which an app knows): NoSuchLaunch is
    /// the app interface's own; the others are io.curtain.Launcher's.
    static func from(_ error: LaunchError) -> VarlinkError {
        if case .noSuchLaunch(let id) = error {
            return VarlinkError(prefix + "NoSuchLaunch", ["id": .int(Int64(id.value))])
        }
        return LauncherErrors.from(error)
    }
    static func permissionDenied(_ method: String) -> VarlinkError {
        VarlinkError(prefix + "PermissionDenied", ["method": .string(method)])
    }
}

/// io.curtain.Launcher's errors.
enum LauncherErrors {
    static let prefix = "io.curtain.Launcher."
    static func noSuchLaunch(_ id: UInt64) -> VarlinkError {
        VarlinkError(prefix + "NoSuchLaunch", ["id": .int(Int64(id))])
    }
    static func noRoute(_ reason: String) -> VarlinkError {
        VarlinkError(prefix + "NoRoute", ["reason": .string(reason)])
    }
    static func invalidRoute(_ reason: String) -> VarlinkError {
        VarlinkError(prefix + "InvalidRoute", ["reason": .string(reason)])
    }
    static func invalidControl(_ reason: String) -> VarlinkError {
        VarlinkError(prefix + "InvalidControl", ["reason": .string(reason)])
    }
    static func permissionDenied(_ method: String) -> VarlinkError {
        VarlinkError(prefix + "PermissionDenied", ["method": .string(method)])
    }
    static func busy(_ launch: UInt64) -> VarlinkError {
        VarlinkError(prefix + "Busy", ["launch": .int(Int64(launch))])
    }
    static func observerTooSlow(_ grace: Double) -> VarlinkError {
        VarlinkError(prefix + "ObserverTooSlow", ["grace_usec": .int(Int64(grace * 1_000_000))])
    }
    static func sceneUnavailable(path: String, reason: String) -> VarlinkError {
        VarlinkError(prefix + "SceneUnavailable", ["path": .string(path), "reason": .string(reason)])
    }
    static func reloadRefused(_ errors: [String]) -> VarlinkError {
        VarlinkError(prefix + "ReloadRefused", ["errors": .array(errors.map { .string($0) })])
    }

    static func from(_ error: RouteError) -> VarlinkError {
        switch error {
        case .unmatched, .unknownApp: noRoute(error.description)
        default: invalidRoute(error.description)
        }
    }

    /// The driver's refusals in io.curtain.Launcher's terms: the one place they are mapped.
    static func from(_ error: LaunchError) -> VarlinkError {
        switch error {
        case .shuttingDown: VarlinkError(VarlinkError.shuttingDownName)
        case .route(let error): from(error)
        case .transitions: invalidRoute(error.description)
        case .noSuchLaunch(let id): noSuchLaunch(id.value)
        case .busy(let holder): busy(holder.value)
        case .invalidControl(let reason): invalidControl(reason)
        }
    }
}
