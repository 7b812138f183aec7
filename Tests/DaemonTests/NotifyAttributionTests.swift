@testable import CurtainDaemon
import Testing

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
        #expect(senders.lookup(1000) == .ask)                  // the limit-th: still asked
        senders.record(1000, unit: "shop.service")
        #expect(senders.count == UnitSenders.limit)
        #expect(senders.lookup(1001) == .full)                 // one past the limit
        senders.record(1001, unit: "shop.service")
        #expect(senders.lookup(1001) == .full && senders.count == UnitSenders.limit)
        #expect(senders.lookup(1000) == .unit("shop.service")) // those known stay known
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
