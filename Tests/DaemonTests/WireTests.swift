import CurtainCore
import Testing
import Varlink

@testable import CurtainDaemon

/// The driver speaks in types (`LaunchEvent`, `LaunchError`); io.curtain.Launcher's and
/// io.curtain.App's JSON and errors are made from them at the interface, in one place.
@Suite struct WireTests {
    @Test func driverErrorsAreMappedOnceToEachInterfacesTerms() {
        #expect(
            LauncherErrors.from(.noSuchLaunch(LaunchID(9)))
                == VarlinkError("io.curtain.Launcher.NoSuchLaunch", ["id": 9])
        )
        // An app is answered in io.curtain.App's terms, which it knows.
        #expect(AppErrors.from(.noSuchLaunch(LaunchID(9))) == VarlinkError("io.curtain.App.NoSuchLaunch", ["id": 9]))
        #expect(LauncherErrors.from(.route(.unknownApp("tv"))) == LauncherErrors.noRoute("unknown app 'tv'"))
        #expect(LauncherErrors.from(.route(.nulInParameter("q"))).name == "io.curtain.Launcher.InvalidRoute")
        #expect(
            LauncherErrors.from(.busy(holder: LaunchID(3))) == VarlinkError("io.curtain.Launcher.Busy", ["launch": 3])
        )
        #expect(LauncherErrors.from(.shuttingDown).name == VarlinkError.shuttingDownName)
        #expect(
            LauncherErrors.from(.transitions("bad"))
                == LauncherErrors.invalidRoute("the transitions do not compile: bad")
        )
        #expect(
            LauncherErrors.from(.invalidControl("ended"))
                == VarlinkError("io.curtain.Launcher.InvalidControl", ["reason": "ended"])
        )
    }

    @Test func eventsBecomeTheInterfacesObjects() {
        let ended = LaunchEvent.state(
            LaunchTransition(launch: LaunchID(2), from: .revealing, to: .revealed, reason: "done", time: 1.5)
        )
        #expect(ended.endsLaunch && ended.launch == LaunchID(2))
        #expect(
            Wire.event(ended) == [
                "kind": "state", "launch": 2, "time": 1.5, "from": "revealing", "to": "revealed", "reason": "done",
            ]
        )
        let moving = LaunchEvent.state(
            LaunchTransition(launch: LaunchID(2), from: nil, to: .presenting, reason: "", time: 0)
        )
        #expect(!moving.endsLaunch)

        var frame = LaunchFrame(
            launch: LaunchID(2),
            index: 4,
            time: 0.4,
            transition: .appear,
            keys: ["logo.opacity", "logo.position"],
            values: [.scalar(0.5), .point(x: 1, y: 2)],
            progress: 0.25
        )
        #expect(
            Wire.event(.frame(frame)) == [
                "kind": "frame", "launch": 2, "time": 0.4, "frame": 4, "transition": "appear", "progress": 0.25,
                "values": ["logo.opacity": [0.5], "logo.position": [1.0, 2.0]],
            ]
        )
        frame.final = true
        #expect(Wire.frame(frame)["final"] == true)
        // Built once and shared by every observer.
        let shared = SharedFrame(frame)
        #expect(shared.event == Wire.frame(frame))
    }
}

extension WireTests {
    /// Seed 001's flip turns about the y axis with perspective: a renderer reading frames must
    /// get rotationY and m34, and must read back exactly what the daemon computed.
    @Test func aTransformGoesOnTheWireWithItsYRotationAndPerspective() throws {
        let flip = Value.transform(
            Transform(scaleX: 1, scaleY: 1, rotation: 0, translationX: 4, translationY: 0, rotationY: -1.5, m34: -0.002)
        )
        let frame = LaunchFrame(
            launch: LaunchID(1),
            index: 0,
            time: 0,
            transition: .reveal,
            keys: ["window.transform"],
            values: [flip],
            progress: 0
        )
        guard case .object(let values)? = Wire.frame(frame)["values"],
            case .array(let components)? = values["window.transform"]
        else {
            Issue.record("no values")
            return
        }
        #expect(components.count == 7)
        #expect(Value(wireKey: "window.transform", components: components.compactMap(\.number)) == flip)
        // Recordings from before (5 components) still replay, flat.
        #expect(
            Value(wireKey: "window.transform", components: [2, 2, 0, 1, 1])
                == .transform(
                    Transform(scaleX: 2, scaleY: 2, rotation: 0, translationX: 1, translationY: 1, rotationY: 0, m34: 0)
                )
        )
        #expect(Value(wireKey: "window.transform", components: [1, 2, 3]) == nil)
        #expect(
            Value(wireKey: "splash.backgroundColor", components: [1, 0, 0, 1])
                == .color(Color(red: 1, green: 0, blue: 0, alpha: 1))
        )
        #expect(Value(wireKey: "mask.bounds", components: [3, 4]) == .size(width: 3, height: 4))
    }
}
