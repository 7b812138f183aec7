import CurtainCore
import Synchronization
import Testing
import Varlink

@testable import CurtainDaemon

@Suite struct ObserverMailboxTests {
    static func event(_ n: Int) -> ObserverMailbox.Item {
        .event(
            .state(LaunchTransition(launch: LaunchID(UInt64(n + 1)), from: nil, to: .requested, reason: "", time: 0))
        )
    }
    static func frame(_ n: Int) -> ObserverMailbox.Item {
        .frame(
            SharedFrame(
                LaunchFrame(
                    launch: LaunchID(1),
                    index: n,
                    time: 0,
                    transition: .appear,
                    keys: [],
                    values: [],
                    progress: 0
                )
            )
        )
    }

    @Test func framesCoalesceBetweenEventsAndOrderIsKept() async {
        let mailbox = ObserverMailbox(limit: 16)
        mailbox.post(Self.frame(1))
        mailbox.post(Self.frame(2))
        mailbox.post(Self.event(1))
        mailbox.post(Self.frame(3))
        mailbox.post(Self.frame(4))
        mailbox.post(Self.frame(5))
        mailbox.post(Self.event(2))
        #expect(mailbox.count == 4)
        var received: [ObserverMailbox.Item] = []
        mailbox.close()
        while let item = await mailbox.next() { received.append(item) }
        #expect(received == [Self.frame(2), Self.event(1), Self.frame(5), Self.event(2)])
    }

    @Test func aStalledObserverHoldsBoundedMemoryHoweverLongItStalls() {
        let mailbox = ObserverMailbox(limit: 4)
        for n in 0..<100_000 { mailbox.post(Self.frame(n)) }
        #expect(mailbox.count == 1)
        for n in 0..<4 { #expect(mailbox.post(Self.event(n))) }
        for n in 0..<1000 { mailbox.post(Self.frame(n)) }
        #expect(mailbox.count == 6)  // frame, four events, frame
        // One state event too many: it is not dropped silently — the observer must go.
        #expect(!mailbox.post(Self.event(4)))
        #expect(mailbox.overflowed)
    }

    @Test func aWaitingObserverGetsTheItemAtOnce() async {
        let mailbox = ObserverMailbox(limit: 4)
        async let first = mailbox.next()
        // The waiter registers before the post or the post queues: either way it arrives.
        mailbox.post(Self.event(7))
        #expect(await first == Self.event(7))
    }

    /// A sink that writes the final reply closes the mailbox: the waiting stream ends (nil)
    /// knowing it was finished, and nothing more is taken.
    @Test(.timeLimit(.minutes(1))) func aSinkThatWritesTheFinalReplyEndsTheStream() async {
        let mailbox = ObserverMailbox(limit: 4)
        let written = Mutex<[ObserverMailbox.Item]>([])
        mailbox.attach { item, _ in
            written.withLock { $0.append(item) }
            return item == Self.event(2) ? .finished : .taken
        }
        async let end = mailbox.next()
        while !mailbox.writesDirectly { await Task.yield() }  // the stream waits with nothing queued
        #expect(mailbox.post(Self.event(1)))
        #expect(mailbox.post(Self.event(2)))
        #expect(await end == nil)
        #expect(mailbox.finished)
        #expect(!mailbox.post(Self.event(3)))
        #expect(written.withLock { $0 } == [Self.event(1), Self.event(2)])
        #expect(!mailbox.overflowed)
    }
}
