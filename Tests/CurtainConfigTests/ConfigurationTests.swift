import CurtainCore
import Foundation
import JSON
import Testing

@testable import CurtainConfig

@Suite struct ConfigurationTests {
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/curtain.toml").path

    func errors(_ text: String) -> [String] {
        do {
            _ = try Configuration(toml: text, file: "c.toml")
            return []
        } catch { return error.errors.map(\.description) }
    }

    @Test func shippedConfigurationIsClean() throws {
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        let configuration = try Configuration(toml: text, file: Self.shipped)
        #expect(configuration.apps.map(\.name) == ["shop", "chat"])
        #expect(configuration.apps[0].readiness == .content)
        #expect(configuration.daemon.socketMode == 0o660)
        let product = try configuration.routes.resolve(.deeplink("shop://product/42?ref=mail"))
        #expect(
            product.destination
                == Destination(
                    app: "shop",
                    screen: "product",
                    parameters: ["id": .int(42), "referrer": .string("mail")]
                )
        )
        let push = try configuration.routes.resolve(
            .push(app: nil, payload: ["aps": ["category": "chat"], "target": ["thread": "t"]])
        )
        #expect(push.destination == Destination(app: "chat", screen: "thread", parameters: ["thread": .string("t")]))
        #expect(try configuration.routes.resolve(.deeplink("nope://x")).destination.reason == "unmatched")
    }

    @Test func launchPoliciesAndObserverLimits() throws {
        let c = try Configuration(
            toml: """
                [daemon]
                on_timeout = "fail"
                while_loading = "queue"
                while_revealing = "ignore"
                duplicate_window = 0
                max_queued = 0
                observer_grace = 0.01
                observer_queue = 65536
                control_group = "video"
                """,
            file: "c.toml"
        )
        #expect(
            c.daemon.launchSettings
                == LaunchSettings(
                    onTimeout: .fail,
                    whileLoading: .queue,
                    whileRevealing: .ignore,
                    duplicateWindow: 0,
                    maximumQueued: 0
                )
        )
        #expect(c.daemon.observerGrace == 0.01 && c.daemon.observerQueue == 65536 && c.daemon.controlGroup == "video")
        #expect(
            errors("[daemon]\non_timeout = \"later\"\nobserver_grace = 0.009\nobserver_queue = 65537\n") == [
                "c.toml:2:1: daemon.on_timeout: 'later' is not one of fallback, fail",
                "c.toml:3:1: daemon.observer_grace: 0.009 is outside 0.01...600.0",
                "c.toml:4:1: daemon.observer_queue: 65537 is outside 1...65536",
            ]
        )
        let t = try Configuration(toml: "[transitions]\nretain = false\ntext_variants = 64\n", file: "c.toml")
        #expect(!t.transitions.retain && t.transitions.textVariants == 64)
        #expect(
            errors("[transitions]\ntext_variants = 0\n") == [
                "c.toml:2:1: transitions.text_variants: 0 is outside 1...64"
            ]
        )
    }

    /// Seed 001's four edges: `transitions.direction` sets the slide's direction.
    @Test func slideDirection() throws {
        let c = try Configuration(toml: "[transitions]\nreveal = \"slide\"\ndirection = \"left\"\n", file: "c.toml")
        let t = try Timeline(document: c.transitions.reveal)
        // the timeline's default screen.width
        #expect(t.evaluate(at: 0).values[t.slotIndex(layer: "window", property: "translationX")!] == .scalar(-375))
        #expect(
            errors("[transitions]\nreveal = \"slide\"\ndirection = \"up\"\n") == [
                "c.toml:3:1: transitions.direction: 'up' is not an edge (bottom, top, left, right)"
            ]
        )
        #expect(
            errors("[transitions]\ndirection = \"top\"\n") == [
                "c.toml:2:1: transitions.direction: the reveal 'yula-mask-reveal' has no direction (slide has)"
            ]
        )
    }

    @Test func noFileMeansDefaults() throws {
        let configuration = try Configuration(toml: "", file: "empty.toml")
        #expect(configuration.apps.isEmpty)
        #expect(configuration.daemon.socket == "/run/curtain/io.curtain.Launcher")
        #expect(configuration.transitions.reveal.name == "yula-mask-reveal")
    }

    @Test func syntaxErrorsHaveTheirPosition() {
        let e = errors("[daemon]\nsocket = \"unterminated\n")
        #expect(e.count == 1)
        #expect(e[0].hasPrefix("c.toml:2:"))
    }

    @Test func everyProblemIsReportedWithItsLocation() {
        let text = """
            [daemon]
            min_hold = 20
            max_hold = 5
            sokcet = "/run/x"

            [display]
            width = "wide"

            [[apps]]
            name = "shop"
            exec = []
            screens = ["home"]
            default_screen = "cart"
            readiness = "soon"

            [[routes.deeplink]]
            pattern = "shop://p/<date:d>"
            app = "shop"
            screen = "home"

            [[routes.deeplink]]
            pattern = "shop://p/<id>"
            app = "shop"
            screen = "home"

            [[routes.deeplink]]
            pattern = "shop://p/<name>"
            app = "shop"
            screen = "gone"

            [transitions]
            reveal = "fade-to-black"
            """
        #expect(
            errors(text) == [
                "c.toml:2:1: daemon.min_hold: 20.0 s is longer than max_hold (5.0 s)",
                "c.toml:4:1: daemon.sokcet: unknown key 'sokcet' (known here: control_group, duplicate_window, frame_rate, max_connections, max_connections_per_user, max_hold, max_message_size, max_queued, min_hold, notify_socket, observer_grace, observer_queue, on_timeout, socket, socket_group, socket_mode, while_loading, while_revealing)",
                "c.toml:7:1: display.width: expected a number",
                "c.toml:11:1: apps[0].exec: needs at least the program to run, e.g. [\"/usr/bin/shop\"]",
                "c.toml:13:1: apps[0].default_screen: app 'shop' has no screen 'cart'",
                "c.toml:14:1: apps[0].readiness: 'soon' is not one of skeleton, content, interactive, ready",
                "c.toml:17:1: routes.deeplink[0].pattern: invalid pattern 'shop://p/<date:d>': unknown placeholder type 'date' (known: string, int, uuid, float, path)",
                "c.toml:26:1: routes.deeplink[2]: can never win: routes.deeplink[1] matches every link it matches and ranks higher",
                "c.toml:29:1: routes.deeplink[2].screen: app 'shop' has no screen 'gone'",
                "c.toml:32:1: transitions.reveal: unknown transition 'fade-to-black' (presets: fade, fade-in, flip, hero, logo-move, mask-reveal, panel-blur, slide, yula-appear, yula-mask-reveal)",
            ]
        )
    }

    @Test func inlineTableKeysAreLocated() {
        let text = """
            [[apps]]
            name = "a"
            exec = ["/bin/a"]
            environment = { LANG = "C", DEPTH = 3 }
            """
        #expect(errors(text) == ["c.toml:4:29: apps[0].environment.DEPTH: expected a string"])
    }

    @Test func sizeLimit() {
        let big = String(repeating: "#", count: Configuration.maximumFileSize + 1)
        #expect(errors(big) == ["c.toml:1:1: the file is 1048577 bytes, more than the limit of 1048576"])
        #expect(errors(String(repeating: "#", count: Configuration.maximumFileSize)) == [])
    }
}

@Suite struct AppArgumentsTests {
    @Test func placeholdersAreWholeArguments() throws {
        let configuration = try Configuration(
            toml: """
                [[apps]]
                name = "shop"
                exec = ["/usr/bin/shop", "--screen", "{screen}", "--id", "{param:id}", "--missing", "{param:nope}", "x{screen}"]
                screens = ["product"]
                """,
            file: "c.toml"
        )
        let destination = Destination(app: "shop", screen: "product", parameters: ["id": .string("42; rm -rf /")])
        #expect(
            configuration.apps[0].arguments(for: destination)
                == ["/usr/bin/shop", "--screen", "product", "--id", "42; rm -rf /", "--missing", "", "x{screen}"]
        )
    }

    @Test func malformedPlaceholdersAreErrors() {
        do {
            _ = try Configuration(toml: "[[apps]]\nname = \"a\"\nexec = [\"/bin/a\", \"{scren}\"]\n", file: "c.toml")
            Issue.record("accepted")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "c.toml:3:1: apps[0].exec: '{scren}' is not a placeholder; use {screen} or {param:NAME}"
                ]
            )
        }
    }
}

@Suite struct TransitionConfigurationTests {
    @Test func inlineTimelineInTOML() throws {
        let configuration = try Configuration(
            toml: """
                [transitions.reveal]
                name = "fade"

                [[transitions.reveal.animations]]
                layer = "splash"
                property = "opacity"
                from = 1
                to = 0
                duration = 0.25
                timing = "ease-out"
                fill = "forwards"
                """,
            file: "c.toml"
        )
        #expect(configuration.transitions.reveal.name == "fade")
        let timeline = try Timeline(document: configuration.transitions.reveal)
        #expect(timeline.duration == 0.25)
    }

    @Test func inlineTimelineErrorsAreLocated() {
        do {
            _ = try Configuration(
                toml: """
                    [transitions.reveal]
                    name = "fade"

                    [[transitions.reveal.animations]]
                    layer = "splash"
                    property = "opacity"
                    from = 1
                    to = 0
                    duration = 0.25
                    timing = "cubic-bezier(2, 0, 0, 1)"
                    """,
                file: "c.toml"
            )
            Issue.record("accepted")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "c.toml:10:1: transitions.reveal.animations[0].timing: cubic-bezier(2, 0, 0, 1): x1 must be within [0, 1]"
                ]
            )
        }
    }
}

@Suite struct ReloadTests {
    /// A bad configuration never replaces a good one.
    @Test func reloadIsAllOrNothing() throws {
        var holder = ConfigurationHolder(try Configuration(toml: "[display]\nwidth = 800\n", file: "c.toml"))
        #expect(throws: ConfigurationErrors.self) {
            try holder.reload(toml: "[display]\nwidth = 1024\nheight = \"tall\"\n", file: "c.toml")
        }
        #expect(holder.current.display.width == 800)
        #expect(holder.generation == 0)
        try holder.reload(toml: "[display]\nwidth = 1024\n", file: "c.toml")
        #expect(holder.current.display.width == 1024)
        #expect(holder.generation == 1)
    }

    /// An empty file (a truncated write) would drop every app: refused unless allowed, and
    /// only when the running configuration has apps.
    @Test func aConfigurationWithoutAppsIsRefusedUnlessAllowed() throws {
        let app = "[[apps]]\nname = \"shop\"\nexec = [\"/bin/true\"]\nscreens = [\"home\"]\ndefault_screen = \"home\"\n"
        var holder = ConfigurationHolder(try Configuration(toml: app, file: "c.toml"))
        do {
            try holder.reload(toml: "", file: "c.toml")
            Issue.record("an empty file was adopted")
        } catch {
            #expect(
                error.errors.map(\.description) == [
                    "c.toml:1:1: apps: the new configuration has no apps, the running one has 1 (shop); an empty or truncated file? "
                        + "To drop every app, reload with allow_empty (curtainctl reload --allow-empty)"
                ]
            )
        }
        #expect(holder.current.apps.map(\.name) == ["shop"] && holder.generation == 0)
        try holder.reload(toml: "", file: "c.toml", allowEmpty: true)
        #expect(holder.current.apps.isEmpty && holder.generation == 1)
        // Empty to empty is no loss: accepted without asking.
        try holder.reload(toml: "[display]\nwidth = 800\n", file: "c.toml")
        #expect(holder.generation == 2)
    }
}

extension ReloadTests {
    /// The daemon's path: the file read again, all or nothing; no file means the defaults
    /// only when none was asked for; the snapshot's transitions are compiled with it.
    @Test func reloadingFromTheFileIsAllOrNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curtain-reload-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("curtain.toml").path
        #expect(throws: ConfigurationErrors.self) { try ConfigurationHolder.load(path, explicit: true) }
        #expect(try ConfigurationHolder.load(path, explicit: false).apps.isEmpty)  // the built-in defaults

        try "[display]\nwidth = 800\n".write(toFile: path, atomically: true, encoding: .utf8)
        var holder = ConfigurationHolder(try ConfigurationHolder.load(path, explicit: true))
        #expect(holder.current.display.width == 800)
        #expect((try? holder.snapshot.transitions.get()) != nil)
        try "[display]\nwidth = \"wide\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationErrors.self) { try holder.reload(path: path, explicit: true) }
        #expect(holder.current.display.width == 800 && holder.generation == 0)
        try "[display]\nwidth = 1024\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try holder.reload(path: path, explicit: true).display.width == 1024)
        #expect(holder.snapshot.configuration.display.width == 1024 && holder.generation == 1)
    }
}
