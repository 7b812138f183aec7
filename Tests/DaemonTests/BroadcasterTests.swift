import CurtainCore
import Testing

@testable import CurtainDaemon

/// The broadcaster's registry: observers removed from anywhere in its list (the last one takes
/// the gap) stop getting items; every other one keeps its own filter.
@Suite struct BroadcasterTests {
    static func frame(_ index: Int, launch: UInt64 = 1) -> LaunchFrame {
        LaunchFrame(
            launch: LaunchID(launch),
            index: index,
            time: Double(index) / 120,
            transition: .appear,
            keys: ["splash.opacity"],
            values: [.scalar(0)],
            progress: 0
        )
    }

    static func frames(_ mailbox: ObserverMailbox) async -> [Int] {
        var out: [Int] = []
        while mailbox.count > 0, case .frame(let f)? = await mailbox.next() { out.append(f.frame.index) }
        return out
    }

    @Test func removingFromTheMiddleKeepsEveryOtherObserversFilter() async {
        let broadcaster = Broadcaster()
        let all = broadcaster.add(.init(launch: nil, frames: true), limit: 10)
        let removed = broadcaster.add(.init(launch: nil, frames: true), limit: 10)
        let everySecond = broadcaster.add(.init(launch: nil, frames: true, everyNth: 2), limit: 10)
        let otherLaunch = broadcaster.add(.init(launch: 2, frames: true), limit: 10)
        let statesOnly = broadcaster.add(.init(launch: nil, frames: false), limit: 10)
        broadcaster.remove(removed.id)
        broadcaster.remove(removed.id)  // twice: nothing more happens
        #expect(broadcaster.count == 4)
        // Frames coalesce in a mailbox nobody reads: each gets its last wanted one.
        for index in 1...3 { broadcaster.publish(Self.frame(index)) }
        #expect(await Self.frames(all.mailbox) == [3])
        #expect(await Self.frames(everySecond.mailbox) == [2])
        #expect(otherLaunch.mailbox.count == 0 && statesOnly.mailbox.count == 0)
        #expect(removed.mailbox.count == 0)
        broadcaster.publish(Self.frame(4, launch: 2))
        #expect(await Self.frames(otherLaunch.mailbox) == [4])
        #expect(await Self.frames(all.mailbox) == [4])
        #expect(await Self.frames(everySecond.mailbox) == [4])
        for subscription in [all, everySecond, otherLaunch, statesOnly] { broadcaster.remove(subscription.id) }
        #expect(broadcaster.count == 0)
        broadcaster.publish(Self.frame(5))
        #expect(all.mailbox.count == 0)
    }
}
