import CurtainCore
import Systemd
import Testing
import Varlink

@testable import CurtainDaemon

/// Which unit a notify message's sender runs in, remembered per launch (`UnitSenders`).
@Suite struct UnitSendersTests {
    @Test("a sender is asked about once: then it is the unit's, or a stranger")
    func askedOnce() {
        var senders = UnitSenders()
        #expect(senders.lookup(100) == .ask)
        senders.record(100, unit: "shop.service")
        senders.record(200, unit: nil)
        #expect(senders.lookup(100) == .unit("shop.service"))
        #expect(senders.lookup(200) == .stranger)
    }

    @Test("at most `limit` senders are remembered: one past it is not asked about")
    func limit() {
        var senders = UnitSenders()
        for pid in 1..<Int32(UnitSenders.limit) { senders.record(pid, unit: nil) }
        #expect(senders.lookup(1000) == .ask)  // the limit-th: still asked
        senders.record(1000, unit: "shop.service")
        #expect(senders.count == UnitSenders.limit)
        #expect(senders.lookup(1001) == .full)  // one past the limit
        senders.record(1001, unit: "shop.service")
        #expect(senders.lookup(1001) == .full && senders.count == UnitSenders.limit)
        #expect(senders.lookup(1000) == .unit("shop.service"))  // those known stay known
    }

    @Test("a unit started again forgets its senders and the strangers; others stay")
    func forget() {
        var senders = UnitSenders()
        senders.record(1, unit: "shop.service")
        senders.record(2, unit: "cart.service")
        senders.record(3, unit: nil)
        senders.forget(unit: "shop.service")
        #expect(senders.lookup(1) == .ask && senders.lookup(3) == .ask)
        #expect(senders.lookup(2) == .unit("cart.service"))
        senders.reset()
        #expect(senders.count == 0)
    }
}

/// Whose notify message is it (`NotifyAttribution`), what it says for the launch
/// (`AppNotification`) and when an app may start again (`CrashLoopGuard`): pure, no process,
/// no socket, time as plain numbers.
@Suite struct NotifyAttributionTests {
    /// Whose message is it: the sender's own pid when it is an app's main process (even if it
    /// has exited and its session reads as 0), else its session's leader, else nobody's.
    @Test func byPidThenSession() {
        var attribution = NotifyAttribution<String>()
        _ = attribution.register(100)
        _ = attribution.register(200)
        #expect(attribution.owner(pid: 100, session: 0) == 100)  // gone already
        #expect(attribution.owner(pid: 100, session: 100) == 100)
        #expect(attribution.owner(pid: 150, session: 200) == 200)  // a child in app 200's session
        #expect(attribution.owner(pid: 150, session: 0) == nil)
        #expect(attribution.owner(pid: 150, session: 150) == nil)  // outside every app
        #expect(attribution.owner(pid: 0, session: 0) == nil)
        attribution.unregister(200)
        #expect(attribution.owner(pid: 150, session: 200) == nil)
    }

    @Test("a message ahead of its app's registration is held and handed over, in order, when it registers")
    func heldUntilRegistered() {
        var attribution = NotifyAttribution<String>()
        #expect(attribution.attribute("STATUS=a", pid: 300, session: 300, at: .zero) == .held)
        #expect(attribution.attribute("other", pid: 400, session: 400, at: .zero) == .held)
        #expect(attribution.attribute("READY=1", pid: 301, session: 300, at: .milliseconds(10)) == .held)  // its helper
        #expect(attribution.register(300) == ["STATUS=a", "READY=1"])
        #expect(attribution.attribute("STATUS=b", pid: 300, session: 300, at: .seconds(1)) == .app(300))
        #expect(attribution.held == 1)
    }

    @Test("a held message is rejected once the window has passed, not before")
    func windowBoundary() {
        var attribution = NotifyAttribution<String>()
        _ = attribution.attribute("a", pid: 500, session: 500, at: .seconds(10))
        #expect(attribution.expire(at: .seconds(10) + NotifyAttribution<String>.window - .milliseconds(1)).isEmpty)
        let expired = attribution.expire(at: .seconds(10) + NotifyAttribution<String>.window)
        #expect(expired.map(\.message) == ["a"] && expired.first?.pid == 500)
        #expect(attribution.held == 0)
    }

    @Test("at most `waitingLimit` messages are held: one past it is rejected; no pid is never held")
    func waitingLimit() {
        var attribution = NotifyAttribution<Int>()
        for i in 0..<NotifyAttribution<Int>.waitingLimit {
            #expect(attribution.attribute(i, pid: 1000 + Int32(i), session: 0, at: .zero) == .held)
        }
        #expect(attribution.attribute(-1, pid: 9999, session: 0, at: .zero) == .rejected)
        var fresh = NotifyAttribution<Int>()
        #expect(fresh.attribute(0, pid: 0, session: 0, at: .zero) == .rejected)
        #expect(fresh.attribute(0, pid: 0, session: 7, at: .zero) == .rejected)
    }
}

@Suite struct AppNotificationTests {
    static let id = LaunchID(7)
    /// Read as the daemon reads elements (`Wire.elements`), whatever type that gives.
    static func elements(_ json: String) -> ReportedElements {
        try! Wire.elements(try! JSONParser.parse(Array(json.utf8)))
    }
    static let logo = elements(#"{"logo":{"x":1,"y":2,"width":3,"height":4}}"#)["logo"]!
    static let known = elements(#"{"old":{"x":0,"y":0,"width":1,"height":1}}"#)

    /// One message in, the launch's events out (the elements known before: `known`).
    static let table: [(message: String, events: [AppEvent], refused: Int)] = [
        ("READY=1", [.ready(id, .ready, status: nil, elements: known)], 0),
        ("STATUS=loading", [.status(id, "loading")], 0),
        (
            "X_CURTAIN_STAGE=skeleton\nSTATUS=s",
            [.status(id, "s"), .ready(id, .skeleton, status: "s", elements: known)], 0
        ),
        (
            "X_CURTAIN_STAGE=content\nX_CURTAIN_ELEMENTS={\"logo\":{\"x\":1,\"y\":2,\"width\":3,\"height\":4}}",
            [.ready(id, .content, status: nil, elements: ["logo": logo])], 0
        ),
        // READY=1 wins
        ("X_CURTAIN_STAGE=interactive\nREADY=1", [.ready(id, .ready, status: nil, elements: known)], 0),
        ("EXTEND_TIMEOUT_USEC=1500000", [.extend(id, seconds: 1.5)], 0),
        ("X_CURTAIN_STAGE=ready", [], 1),  // READY=1 is how ready is said
        ("X_CURTAIN_STAGE=done\nSTATUS=x", [.status(id, "x")], 1),
        ("X_CURTAIN_ELEMENTS=[1]\nX_CURTAIN_STAGE=content", [.ready(id, .content, status: nil, elements: known)], 1),
        ("X_CURTAIN_ELEMENTS={\"logo\":{\"x\":1}}", [], 1),
        ("ERRNO=5\nMAINPID=3", [], 0),
    ]

    @Test(arguments: table.indices)
    func translation(_ row: Int) throws {
        let (text, events, refused) = Self.table[row]
        let note = AppNotification(try NotifyMessage(parsing: Array(text.utf8)))
        #expect(note.events(for: Self.id, elements: Self.known) == events, "\(text)")
        #expect(note.refused.count == refused, "\(text): \(note.refused)")
    }

    @Test func errnoAndElementsAreKept() throws {
        let note = AppNotification(
            try NotifyMessage(
                parsing: Array("ERRNO=5\nX_CURTAIN_ELEMENTS={\"logo\":{\"x\":1,\"y\":2,\"width\":3,\"height\":4}}".utf8)
            )
        )
        #expect(note.errno == 5 && note.elements == ["logo": Self.logo] && note.stage == nil)
    }
}

@Suite struct CrashLoopGuardTests {
    @Test("the limit-th failure within the window stops starts until the oldest leaves it")
    func limitAndWindow() {
        var guardian = CrashLoopGuard()
        for i in 0..<(CrashLoopGuard.limit - 1) { guardian.failed("shop", at: .seconds(i)) }
        #expect(guardian.check("shop", at: .seconds(10)) == nil)  // one below the limit
        guardian.failed("shop", at: .seconds(10))
        let refusal = guardian.check("shop", at: .seconds(20))  // at the limit
        #expect(refusal == .init(app: "shop", failures: CrashLoopGuard.limit, wait: .seconds(40)))
        #expect(refusal?.description == "app 'shop' failed 5 times within 60 s; not started again for 41 s")
        #expect(guardian.check("other", at: .seconds(20)) == nil)  // per app
        #expect(guardian.check("shop", at: CrashLoopGuard.window - .milliseconds(1)) != nil)
        #expect(guardian.check("shop", at: CrashLoopGuard.window) == nil)  // the oldest left the window
    }

    @Test("failures older than the window do not count")
    func oldFailures() {
        var guardian = CrashLoopGuard()
        for i in 0..<CrashLoopGuard.limit { guardian.failed("shop", at: .seconds(i * 20)) }  // 0, 20, …, 80
        #expect(guardian.check("shop", at: .seconds(81)) == nil)
    }
}
