import CurtainTestKit
import Foundation
import Testing
import Varlink
import VarlinkNIO

#if canImport(Glibc)
import Glibc
#endif

/// The real curtaind binary on a temporary socket, driven by python's reference Varlink
/// client: a launch from Launch to revealed with frames streamed to two observers.
@Suite(.serialized) struct LauncherIntegrationTests {
    static let daemon = TestEnvironment.product("curtaind")
    static let python = TestEnvironment.repository.appendingPathComponent(".venv/bin/python").path
    static let client = TestEnvironment.repository.appendingPathComponent("Tests/DaemonTests/launch_client.py").path

    /// curtaind with the shipped configuration (world-writable socket for the permission
    /// test), started and READY=1.
    /// `slowAppear`: the appear lasts 4 s, so a control call arrives while it runs however
    /// loaded the machine is (the shipped 0.3 s can end before the call lands); played back
    /// from half way it still ends well within max_hold.
    static func start(slowAppear: Bool = false) async throws -> (TestProcess, socket: String) {
        let directory = TestEnvironment.temporaryDirectory("launcher")
        let socket = directory.appendingPathComponent("launcher.sock").path
        let config = try TestConfiguration.write(into: directory)
        if slowAppear {
            let text = try String(contentsOfFile: config, encoding: .utf8)
            try
                (text.replacingOccurrences(of: "\nappear = \"yula-appear\"\n", with: "\n") + """

                    [transitions.appear]
                    name = "slow-appear"
                    [[transitions.appear.animations]]
                    layer = "splash"
                    property = "opacity"
                    from = 0
                    to = 1
                    duration = 4
                    fill = "forwards"

                    """).write(toFile: config, atomically: true, encoding: .utf8)
        }
        let notify = NotifyListener(directory: directory)
        let process = try await TestProcess(
            daemon,
            ["--config", config, "--socket", socket],
            environment: ["NOTIFY_SOCKET": notify.path]
        )
        let ready = await notify.await { $0.hasPrefix("READY=1") }
        #expect(ready.matched != nil, "curtaind did not get ready: \(process.output)")
        return (process, socket)
    }

    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func aLaunchIsWatchedFromLaunchToRevealed() async throws {
        guard TestEnvironment.isExecutable(Self.python) else {
            if TestEnvironment.inCI { Issue.record("the python venv is missing; run make setup") }
            return
        }
        let (daemon, socket) = try await Self.start()
        let run = try await TestProcess.run(Self.python, [Self.client, socket, "scenario"], within: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let result = json(run.stdout)
        let seen = result["seen"] as? [String: [[String: Any]]] ?? [:]
        let a = seen["a"] ?? []
        let b = seen["b"] ?? []

        // Every state, in order, each with its reason; the destination from the deep link.
        let states = a.filter { $0["kind"] as? String == "state" }.map { $0["to"] as? String ?? "?" }
        #expect(states == ["requested", "presenting", "holding", "revealing", "revealed"])
        let first = result["first"] as? [String: Any]
        let destination = (first?["launch"] as? [String: Any])?["destination"] as? [String: Any]
        #expect(destination?["screen"] as? String == "product")
        #expect((destination?["parameters"] as? [String: String])?["id"] == "42")
        let final = result["final"] as? [String: Any]
        #expect(final?["state"] as? String == "revealed" && final?["readiness"] as? String == "content")
        #expect(final?["app_status"] as? String == "catalogue loaded")

        // Frames: on the 60 Hz grid (time = frame / 60), consecutive while the overlay moves.
        let all = a.filter { $0["kind"] as? String == "frame" }
        // The last frame is the reveal's end state at its exact end, just before "revealed".
        #expect(all.last?["final"] as? Bool == true)
        #expect(all.last?["time"] as? Double == a.last?["time"] as? Double)
        let frames = all.filter { $0["final"] == nil }
        #expect(frames.count > 20)
        for frame in frames {
            let index = frame["frame"] as? Int ?? -1
            let time = frame["time"] as? Double ?? -1
            #expect(abs(time - Double(index) / 60) < 1e-9, "frame \(index) at \(time)")
        }
        // In order and one period apart — unless the reader lagged a frame behind, when the
        // newer frame replaced the waiting one (coalescing): a gap, never a burst or a reorder.
        let reveal = frames.filter { $0["transition"] as? String == "reveal" }.compactMap { $0["frame"] as? Int }
        let steps = zip(reveal, reveal.dropFirst()).map { $1 - $0 }
        #expect(!reveal.isEmpty && steps.allSatisfy { $0 >= 1 }, "\(reveal)")
        // 0.6 s at 60 Hz
        #expect(steps.filter { $0 == 1 }.count * 10 >= steps.count * 8, "mostly one period apart: \(reveal)")

        // Frames written straight from the event loop never overtake a state event: every
        // reveal frame comes after "revealing", and "revealed" after the final frame.
        let position = { (to: String) in
            a.firstIndex { $0["kind"] as? String == "state" && $0["to"] as? String == to } ?? -1
        }
        let firstReveal =
            a.firstIndex { $0["kind"] as? String == "frame" && $0["transition"] as? String == "reveal" } ?? -1
        let lastFrame = a.lastIndex { $0["kind"] as? String == "frame" } ?? -1
        #expect(position("revealing") >= 0 && position("revealing") < firstReveal)
        #expect(lastFrame >= 0 && lastFrame < position("revealed"))

        // The second observer joined after the launch: it starts with a snapshot and then gets
        // every state event; its reveal frames lie on the same grid, in order.
        let bStates = b.filter { $0["kind"] as? String == "state" }.map { $0["to"] as? String ?? "?" }
        #expect(bStates.last == "revealed" && bStates.contains("revealing"))
        let bRevealFrames = b.filter { $0["transition"] as? String == "reveal" && $0["final"] == nil }
        let bReveal = bRevealFrames.compactMap { $0["frame"] as? Int }
        #expect(!bReveal.isEmpty && zip(bReveal, bReveal.dropFirst()).allSatisfy { $1 > $0 })
        // Within the reveal as the first observer saw it (either may have had frames coalesced,
        // so their sets of frames need not match).
        let stateTime = { (to: String) in
            a.first { $0["kind"] as? String == "state" && $0["to"] as? String == to }?["time"] as? Double ?? -1
        }
        for frame in bRevealFrames {
            let index = frame["frame"] as? Int ?? -1
            let time = frame["time"] as? Double ?? -1
            #expect(
                abs(time - Double(index) / 60) < 1e-9 && time >= stateTime("revealing") - 1.0 / 60
                    && time <= stateTime("revealed"),
                "frame \(index) at \(time)"
            )
        }

        let statistics = result["statistics"] as? [String: Any]
        #expect(statistics?["revealed"] as? Int == 1 && statistics?["started"] as? Int == 1)

        daemon.signal(SIGTERM)
        let finished = await daemon.finish(within: 15)
        #expect(finished.status == 0, "\(finished.output)")
    }

    @Test func onlyTheControlGroupMayLaunch() async throws {
        guard TestEnvironment.isRoot, TestEnvironment.isExecutable(Self.python) else {
            if TestEnvironment.inCI { Issue.record("needs root and the python venv") }
            return
        }
        let (daemon, socket) = try await Self.start()
        // The same client as an unprivileged user outside the control group.
        let run = try await TestProcess.run(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                Self.python, Self.client, socket, "denied",
            ],
            within: 60
        )
        #expect(run.status == 0, "\(run.stderr)")
        let result = json(run.stdout)
        #expect(result["ping"] as? String == "ok")
        #expect(result["launch"] as? String == "io.curtain.Launcher.PermissionDenied")
        #expect(result["list"] as? Int == 0)  // and nothing was launched
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }
}

extension LauncherIntegrationTests {
    /// Our own client (VarlinkNIO) against the real daemon: control mid-reveal and errors.
    @Test func ourClientSteersALaunch() async throws {
        let (daemon, socket) = try await Self.start(slowAppear: true)
        try await VarlinkConnection.withConnection(to: socket) { connection in
            let launched = try await connection.call(
                "io.curtain.Launcher.Launch",
                ["route": ["deeplink": "shop://product/7"]]
            )
            guard case .object(let launch)? = launched["launch"], case .int(let id)? = launch["id"] else {
                Issue.record("no launch: \(launched)")
                return
            }
            // Paused at half of the appear, it stays there.
            let paused = try await connection.call(
                "io.curtain.Launcher.Control",
                ["id": .int(id), "action": "seek", "progress": 0.5]
            )
            #expect((paused["launch"]?["state"]) == "presenting")
            // A stream holds its connection until it ends: watch on a second one.
            let last: JSONValue? = try await VarlinkConnection.withConnection(to: socket) { watcher in
                var events = watcher.callMore("io.curtain.Launcher.Watch", ["launch": .int(id)]).makeAsyncIterator()
                #expect(try await events.next()?["event"]?["to"] == "presenting")  // the snapshot
                _ = try await connection.call("io.curtain.Launcher.Control", ["id": .int(id), "action": "cancel"])
                // Cancel plays the appear back from half way (2 s); then the launch ends cancelled.
                var last: JSONValue?
                while let reply = try await events.next() { last = reply["event"]?["to"] }
                return last
            }
            #expect(last == "cancelled")
            await #expect(
                throws: VarlinkError(
                    "io.curtain.Launcher.InvalidControl",
                    ["reason": .string("launch \(id) has already ended (cancelled)")]
                )
            ) {
                _ = try await connection.call("io.curtain.Launcher.Control", ["id": .int(id), "action": "pause"])
            }
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }
}

extension LauncherIntegrationTests {
    /// GetScene through python's reference client against the real curtaind: the shipped
    /// scene's absolute path, the SHA-256 of its bytes (checked against python's hashlib), the
    /// elements the app reported; id 0 is InvalidParameter, an unknown id NoSuchLaunch.
    @Test func aRendererLearnsTheSceneOfALaunch() async throws {
        guard TestEnvironment.isExecutable(Self.python) else {
            if TestEnvironment.inCI { Issue.record("needs the python venv") }
            return
        }
        let (daemon, socket) = try await Self.start()
        let run = try await TestProcess.run(Self.python, [Self.client, socket, "scene"], within: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let result = json(run.stdout)
        let scene = result["scene"] as? [String: Any]
        let path = scene?["path"] as? String ?? ""
        #expect(path.hasPrefix("/") && path.hasSuffix("/yula/yula.scene.json"), "\(result)")
        #expect(
            scene?["sha256"] as? String == result["hashlib"] as? String && (result["hashlib"] as? String)?.count == 64
        )
        #expect(scene?["appear"] as? String == "yula-appear" && scene?["reveal"] as? String == "yula-mask-reveal")
        #expect(scene?["text_variant"] as? Int == result["text_variant"] as? Int)
        #expect((scene?["elements"] as? [String: [Double]])?["logo"] == [10, 20, 30, 40])
        #expect((scene?["hidden"] as? [String]) == [])
        let zero = result["0"] as? [Any]
        let unknown = result["1099511627776"] as? [Any]
        #expect(
            zero?.first as? String == "org.varlink.service.InvalidParameter"
                && (zero?.last as? [String: Any])?["parameter"] as? String == "launch"
        )
        #expect(
            unknown?.first as? String == "io.curtain.Launcher.NoSuchLaunch"
                && (unknown?.last as? [String: Any])?["id"] as? Int == 1 << 40
        )
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }
}

extension LauncherIntegrationTests {
    /// A launch's `requested` and `presenting` events are in every observer's socket before the
    /// Launch caller gets its reply (the driver writes them while it takes the launch; the
    /// reply follows), and each observer sees every state event in order (README, issue 18).
    @Test(.timeLimit(.minutes(1))) func observersHavePresentingBeforeTheLaunchReply() async throws {
        let (daemon, socket) = try await Self.start()
        let watcher = try FrameFanOutTests.Peer(path: socket)
        watcher.send(#"{"method":"io.curtain.Launcher.Watch","parameters":{},"more":true}"# + "\0")
        let caller = try FrameFanOutTests.Peer(path: socket)
        for launch in 1...2 {
            caller.send(#"{"method":"io.curtain.Launcher.Launch","parameters":{"route":{"normal":"shop"}}}"# + "\0")
            let reply = await offload { caller.read(until: { _ in true }) }
            #expect(reply.count == 1, "no Launch reply")
            // The first launch's events may still go through the Watch's own task (it takes
            // its socket just after it starts); from the second on, the driver writes them.
            let already = watcher.available()
            if launch == 2 {
                #expect(
                    FrameFanOutTests.states(already) == ["requested", "presenting"],
                    "before the reply: \(already)"
                )
            }
            caller.send(#"{"method":"io.curtain.App.Ready","parameters":{"launch":\#(launch)}}"# + "\0")
            _ = await offload { caller.read(until: { _ in true }) }
            let rest = await offload { watcher.readToEnd() }
            // (The first may also come as the Watch's snapshot, if the Watch was served after it.)
            if launch == 2 {
                #expect(
                    FrameFanOutTests.states(already + rest) == [
                        "requested", "presenting", "holding", "revealing", "revealed",
                    ]
                )
            }
        }
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 15).status == 0)
    }
}
