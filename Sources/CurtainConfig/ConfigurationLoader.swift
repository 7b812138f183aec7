import CurtainCore
import JSON

extension Configuration {
    /// Largest configuration file accepted.
    public static let maximumFileSize = 1024 * 1024

    /// Reads a configuration from TOML text, checking all of it: unknown keys, wrong types,
    /// values out of range, screens and apps that do not exist, patterns that can never win
    /// or whose order silently decides, transitions that do not compile. Throws every problem
    /// at once; returns only a configuration with none.
    public init(toml text: String, file: String) throws(ConfigurationErrors) {
        guard text.utf8.count <= Self.maximumFileSize else {
            throw ConfigurationErrors(errors: [
                ConfigurationError(
                    file: file,
                    line: 1,
                    column: 1,
                    keyPath: "",
                    message: "the file is \(text.utf8.count) bytes, more than the limit of \(Self.maximumFileSize)"
                )
            ])
        }
        let document: JSONValue
        do { document = try TOMLDocument.parse(text) } catch {
            throw ConfigurationErrors(errors: [
                ConfigurationError(
                    file: file,
                    line: error.line,
                    column: error.column,
                    keyPath: "",
                    message: error.message
                )
            ])
        }
        var reader = ConfigReader(file: file, locator: KeyLocator(text))
        self.init()
        read(document, with: &reader)
        // In file order, as an editor would walk them.
        let errors = reader.errors.enumerated().sorted {
            ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset)
        }
        if !errors.isEmpty { throw ConfigurationErrors(errors: errors.map(\.element)) }
    }

    private mutating func read(_ document: JSONValue, with r: inout ConfigReader) {
        let root = r.table(document, "", allowed: ["daemon", "display", "apps", "routes", "transitions"]) ?? [:]

        if let daemon = r.table(
            root["daemon"],
            "daemon",
            allowed: [
                "socket", "socket_mode", "socket_group", "frame_rate", "min_hold",
                "max_hold", "max_message_size", "max_connections", "max_connections_per_user", "notify_socket",
                "control_group", "on_timeout", "while_loading", "while_revealing",
                "duplicate_window", "max_queued", "observer_grace", "observer_queue",
            ]
        ) {
            self.daemon.socket = r.string(daemon["socket"], "daemon.socket") ?? self.daemon.socket
            if let mode = r.string(daemon["socket_mode"], "daemon.socket_mode") {
                if let value = UInt32(mode, radix: 8), value <= 0o777 {
                    self.daemon.socketMode = value
                } else {
                    r.fail("daemon.socket_mode", "'\(mode)' is not an octal mode such as \"0660\"")
                }
            }
            self.daemon.socketGroup = r.string(daemon["socket_group"], "daemon.socket_group")
            self.daemon.notifySocket =
                r.string(daemon["notify_socket"], "daemon.notify_socket") ?? self.daemon.notifySocket
            self.daemon.frameRate = r.number(daemon["frame_rate"], "daemon.frame_rate", in: 1...1000)
            self.daemon.minimumHold =
                r.number(daemon["min_hold"], "daemon.min_hold", in: 0...60) ?? self.daemon.minimumHold
            self.daemon.maximumHold =
                r.number(daemon["max_hold"], "daemon.max_hold", in: 0.1...3600) ?? self.daemon.maximumHold
            if self.daemon.minimumHold > self.daemon.maximumHold {
                r.fail(
                    "daemon.min_hold",
                    "\(self.daemon.minimumHold) s is longer than max_hold (\(self.daemon.maximumHold) s)"
                )
            }
            self.daemon.maximumMessageSize =
                r.integer(daemon["max_message_size"], "daemon.max_message_size", in: 1024...(256 << 20))
                ?? self.daemon.maximumMessageSize
            self.daemon.maximumConnections =
                r.integer(daemon["max_connections"], "daemon.max_connections", in: 1...65536)
                ?? self.daemon.maximumConnections
            self.daemon.maximumConnectionsPerUser =
                r.integer(daemon["max_connections_per_user"], "daemon.max_connections_per_user", in: 1...65536)
                ?? self.daemon.maximumConnectionsPerUser
            if daemon["control_group"] != nil {
                self.daemon.controlGroup = r.string(daemon["control_group"], "daemon.control_group")
            }
            self.daemon.onTimeout = r.choice(daemon["on_timeout"], "daemon.on_timeout") ?? self.daemon.onTimeout
            self.daemon.whileLoading =
                r.choice(daemon["while_loading"], "daemon.while_loading") ?? self.daemon.whileLoading
            self.daemon.whileRevealing =
                r.choice(daemon["while_revealing"], "daemon.while_revealing") ?? self.daemon.whileRevealing
            self.daemon.duplicateWindow =
                r.number(daemon["duplicate_window"], "daemon.duplicate_window", in: 0...60)
                ?? self.daemon.duplicateWindow
            self.daemon.maximumQueued =
                r.integer(daemon["max_queued"], "daemon.max_queued", in: 0...1024) ?? self.daemon.maximumQueued
            self.daemon.observerGrace =
                r.number(daemon["observer_grace"], "daemon.observer_grace", in: 0.01...600) ?? self.daemon.observerGrace
            self.daemon.observerQueue =
                r.integer(daemon["observer_queue"], "daemon.observer_queue", in: 1...65536) ?? self.daemon.observerQueue
        }

        if let display = r.table(
            root["display"],
            "display",
            allowed: ["width", "height", "refresh_rate", "reduced_motion"]
        ) {
            self.display.reducedMotion =
                r.bool(display["reduced_motion"], "display.reduced_motion") ?? self.display.reducedMotion
            self.display.width = r.number(display["width"], "display.width", in: 1...32768) ?? self.display.width
            self.display.height = r.number(display["height"], "display.height", in: 1...32768) ?? self.display.height
            self.display.refreshRate =
                r.number(display["refresh_rate"], "display.refresh_rate", in: 1...1000) ?? self.display.refreshRate
        }

        var names = Set<String>()
        for (index, value) in (r.array(root["apps"], "apps") ?? []).enumerated() {
            let path = "apps[\(index)]"
            guard
                let table = r.table(
                    value,
                    path,
                    allowed: [
                        "name", "exec", "unit", "environment", "working_directory", "screens", "default_screen",
                        "readiness", "single_instance", "warm", "direction",
                    ]
                )
            else { continue }
            guard let name = r.required(r.string(table["name"], "\(path).name"), "\(path).name") else { continue }
            if !names.insert(name).inserted { r.fail("\(path).name", "app '\(name)' is defined twice") }
            // Without exec the app is started by someone else and reports through io.curtain.App.
            let exec = r.strings(table["exec"], "\(path).exec") ?? []
            if table["exec"] != nil, exec.isEmpty {
                r.fail("\(path).exec", "needs at least the program to run, e.g. [\"/usr/bin/\(name)\"]")
            }
            if let program = exec.first, !program.hasPrefix("/") {
                r.fail("\(path).exec", "'\(program)' is not an absolute path (no PATH lookup, no shell)")
            }
            let screens = r.strings(table["screens"], "\(path).screens") ?? ["main"]
            let defaultScreen = r.string(table["default_screen"], "\(path).default_screen") ?? screens.first ?? "main"
            var environment: [String: String] = [:]
            if let table = r.table(table["environment"], "\(path).environment", allowed: nil) {
                for (key, value) in table { environment[key] = r.string(value, "\(path).environment.\(key)") }
            }
            let readiness: Readiness = r.choice(table["readiness"], "\(path).readiness") ?? .ready
            var app = App(
                name: name,
                exec: exec,
                environment: environment,
                workingDirectory: r.string(table["working_directory"], "\(path).working_directory"),
                screens: screens,
                defaultScreen: defaultScreen,
                readiness: readiness,
                singleInstance: r.bool(table["single_instance"], "\(path).single_instance") ?? true,
                warm: r.choice(table["warm"], "\(path).warm") ?? .restart,
                direction: r.string(table["direction"], "\(path).direction")
            )
            // A unit instead of exec: how it runs (argv, environment, directory) is the unit's.
            if let text = r.string(table["unit"], "\(path).unit") {
                do { app.unit = try UnitName(text) } catch { r.fail("\(path).unit", error.message) }
                if table["exec"] != nil {
                    r.fail(
                        "\(path).unit",
                        "exec and unit exclude each other: curtaind either runs exec itself or starts the unit"
                    )
                }
                for key in ["environment", "working_directory"] where table[key] != nil {
                    r.fail(
                        "\(path).\(key)",
                        "has no effect on a unit: set it in the unit (Environment=, WorkingDirectory=)"
                    )
                }
            }
            for element in app.malformedPlaceholders {
                r.fail("\(path).exec", "'\(element)' is not a placeholder; use {screen} or {param:NAME}")
            }
            apps.append(app)
        }

        var deepLinks: [DeepLinkRule] = []
        var pushRules: [PushRule] = []
        var fallback: Destination? = nil
        var rulePaths: [String] = []
        if let routes = r.table(root["routes"], "routes", allowed: ["deeplink", "push", "fallback"]) {
            for (index, value) in (r.array(routes["deeplink"], "routes.deeplink") ?? []).enumerated() {
                let path = "routes.deeplink[\(index)]"
                guard let rule = r.table(value, path, allowed: ["pattern", "app", "screen", "priority", "query"]),
                    let app = r.required(r.string(rule["app"], "\(path).app"), "\(path).app"),
                    let screen = r.required(r.string(rule["screen"], "\(path).screen"), "\(path).screen"),
                    let text = r.required(r.string(rule["pattern"], "\(path).pattern"), "\(path).pattern")
                else { continue }
                let pattern: RoutePattern
                do { pattern = try RoutePattern(parsing: text) } catch {
                    r.fail("\(path).pattern", error.description)
                    continue
                }
                var query: [String: String] = [:]
                if let table = r.table(rule["query"], "\(path).query", allowed: nil) {
                    for (item, parameter) in table { query[item] = r.string(parameter, "\(path).query.\(item)") }
                }
                deepLinks.append(
                    DeepLinkRule(
                        app: app,
                        screen: screen,
                        pattern: pattern,
                        priority: r.integer(rule["priority"], "\(path).priority", in: -1000...1000) ?? 0,
                        query: query
                    )
                )
                rulePaths.append(path)
            }
            for (index, value) in (r.array(routes["push"], "routes.push") ?? []).enumerated() {
                let path = "routes.push[\(index)]"
                guard
                    let rule = r.table(
                        value,
                        path,
                        allowed: ["app", "screen", "priority", "equals", "present", "parameters"]
                    ),
                    let app = r.required(r.string(rule["app"], "\(path).app"), "\(path).app"),
                    let screen = r.required(r.string(rule["screen"], "\(path).screen"), "\(path).screen")
                else { continue }
                var equals: [PushRule.KeyPath: JSONValue] = [:]
                for (key, expected) in r.table(rule["equals"], "\(path).equals", allowed: nil) ?? [:] {
                    equals[.init(key)] = expected
                }
                var parameters: [String: PushRule.KeyPath] = [:]
                if let table = r.table(rule["parameters"], "\(path).parameters", allowed: nil) {
                    for (name, keyPath) in table {
                        if let keyPath = r.string(keyPath, "\(path).parameters.\(name)") {
                            parameters[name] = .init(keyPath)
                        }
                    }
                }
                pushRules.append(
                    PushRule(
                        app: app,
                        screen: screen,
                        equals: equals,
                        present: (r.strings(rule["present"], "\(path).present") ?? []).map(PushRule.KeyPath.init),
                        parameters: parameters,
                        priority: r.integer(rule["priority"], "\(path).priority", in: -1000...1000) ?? 0
                    )
                )
            }
            if let table = r.table(routes["fallback"], "routes.fallback", allowed: ["app", "screen"]),
                let app = r.required(r.string(table["app"], "routes.fallback.app"), "routes.fallback.app")
            {
                let screen =
                    r.string(table["screen"], "routes.fallback.screen") ?? apps.first { $0.name == app }?.defaultScreen
                    ?? "main"
                fallback = Destination(app: app, screen: screen)
            }
        }
        routes = RouteTable(
            apps: apps.map { AppRoutes(name: $0.name, screens: $0.screens, defaultScreen: $0.defaultScreen) },
            deepLinks: deepLinks,
            pushRules: pushRules,
            fallback: fallback
        )
        // Problems are named by key path here, not by the core's rule numbers (a rule that did
        // not compile has no number there).
        func path(_ reference: RouteProblem.Reference, _ key: String) -> String {
            switch reference {
            case .deepLink(let i): "\(rulePaths[i]).\(key)"
            case .push(let i): "routes.push[\(i)].\(key)"
            case .fallback: "routes.fallback.\(key)"
            case .defaultScreen(let app): "apps[\(apps.firstIndex { $0.name == app } ?? 0)].default_screen"
            }
        }
        for problem in routes.problems() {
            switch problem {
            case .shadowed(let rule, let by):
                r.fail(
                    rulePaths[rule],
                    "can never win: \(rulePaths[by]) matches every link it matches and ranks higher"
                )
            case .ambiguous(let first, let second):
                r.fail(
                    rulePaths[second],
                    "can match the same links as \(rulePaths[first]) with equal rank; give one a priority"
                )
            case .unknownApp(let reference, let app):
                r.fail(path(reference, "app"), "unknown app '\(app)'")
            case .unknownScreen(let reference, let app, let screen):
                r.fail(path(reference, "screen"), "app '\(app)' has no screen '\(screen)'")
            }
        }

        if let transitions = r.table(
            root["transitions"],
            "transitions",
            allowed: ["appear", "reveal", "retain", "text_variants", "direction", "scene", "modifiers"]
        ) {
            self.transitions.retain = r.bool(transitions["retain"], "transitions.retain") ?? self.transitions.retain
            self.transitions.textVariants =
                r.integer(transitions["text_variants"], "transitions.text_variants", in: 1...64)
                ?? self.transitions.textVariants
            for key in ["appear", "reveal"] {
                guard let value = transitions[key] else { continue }
                let path = "transitions.\(key)"
                if case .object = value {
                    // An inline timeline document (docs/timeline.md), in TOML.
                    do {
                        let document = try TimelineDocument(json: JSONWriter.bytes(value))
                        if key == "appear" {
                            self.transitions.appear = document
                        } else {
                            self.transitions.reveal = document
                        }
                    } catch {
                        r.fail(error.path.isEmpty ? path : "\(path).\(error.path)", error.message)
                    }
                    continue
                }
                guard let name = r.string(value, path) else { continue }
                guard let document = Presets.document(named: name) else {
                    r.fail(
                        path,
                        "unknown transition '\(name)' (presets: \(Presets.all.keys.sorted().joined(separator: ", ")))"
                    )
                    continue
                }
                if key == "appear" { self.transitions.appear = document } else { self.transitions.reveal = document }
            }
            // Hero's modifiers per element id (seed 004), as a scene's heroModifiers.
            if let table = r.table(transitions["modifiers"], "transitions.modifiers", allowed: nil) {
                if table.count > Self.maximumModifiers {
                    r.fail(
                        "transitions.modifiers",
                        "has \(table.count) elements, more than the limit of \(Self.maximumModifiers)"
                    )
                }
                for (id, value) in table.sorted(by: { $0.key < $1.key }) {
                    let path = "transitions.modifiers.\(id)"
                    guard (1...64).contains(id.utf8.count),
                        id.utf8.allSatisfy({
                            $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0)
                                || (97...122).contains($0)
                        })
                    else {
                        r.fail(path, "'\(id)' is not an element id (1 to 64 of A-Z a-z 0-9 _ -)")
                        continue
                    }
                    do { self.transitions.modifiers[id] = try Hero.ElementModifiers(json: value, path: path) } catch {
                        r.fail(error.path, error.message)
                    }
                }
            }
            // Seed 001's edge for the slide: the reveal's direction.x/direction.y defaults.
            if let value = transitions["direction"], let name = r.string(value, "transitions.direction") {
                if let edge = Presets.slideDirection(name) {
                    if let document = Presets.document(self.transitions.reveal, defaults: edge) {
                        self.transitions.reveal = document
                    } else {
                        r.fail(
                            "transitions.direction",
                            "the reveal '\(self.transitions.reveal.name)' has no direction (slide has)"
                        )
                    }
                } else {
                    r.fail("transitions.direction", "'\(name)' is not an edge (bottom, top, left, right)")
                }
            }
        }
        // The scene, checked now so that a broken one never reaches a renderer (a reload
        // refuses it); the shipped scenes are checked by the repository's own tests.
        if case .object(let transitions)? = root["transitions"],
            let scene = r.string(transitions["scene"], "transitions.scene")
        {
            if scene.isEmpty {
                r.fail(
                    "transitions.scene",
                    "is empty; name a *.scene.json file, or leave the key out for the reveal's own scene"
                )
            } else {
                let path = SceneLocator.resolve(scene, relativeTo: r.file)
                if let problem = SceneFileCheck.problem(path, width: display.width, height: display.height) {
                    r.fail("transitions.scene", problem)
                } else {
                    self.transitions.scene = path
                }
            }
        }
        // An app's own edge needs a reveal with one (the slide).
        for (index, app) in apps.enumerated() {
            guard let name = app.direction else { continue }
            let path = "apps[\(index)].direction"
            if let edge = Presets.slideDirection(name) {
                if Presets.document(self.transitions.reveal, defaults: edge) == nil {
                    r.fail(path, "the reveal '\(self.transitions.reveal.name)' has no direction (slide has)")
                }
            } else {
                r.fail(path, "'\(name)' is not an edge (bottom, top, left, right)")
            }
        }
        // Transitions must compile against this display.
        for (key, document) in [("appear", self.transitions.appear), ("reveal", self.transitions.reveal)] {
            do {
                _ = try Timeline(
                    document: document,
                    parameters: ["screen.width": display.width, "screen.height": display.height]
                )
            } catch {
                r.fail(error.path.isEmpty ? "transitions.\(key)" : "transitions.\(key).\(error.path)", error.message)
            }
        }
    }
}
