import Foundation
import Testing

@testable import Systemd

#if canImport(Glibc)
import Glibc
#endif

/// The receiver's backlog on its own: limits at their boundary, who loses what, the order of
/// service and the numbering `flush` relies on.
@Suite struct NotifyBacklogTests {
    typealias Backlog = NotifyBacklog<String>

    static func drain(_ backlog: inout Backlog) -> [(element: String, through: UInt64)] {
        var out: [(String, UInt64)] = []
        while let next = backlog.next() { out.append((next.element, next.through)) }
        return out
    }

    @Test func theReceiversLimits() {
        #expect(NotifyReceiver.backlogPerSender == 64 && NotifyReceiver.backlog == 1024)
        // A flood from 16 senders at their own limit fills the whole backlog, no fewer.
        #expect(NotifyReceiver.backlog / NotifyReceiver.backlogPerSender == 16)
        #expect(
            NotifyReceiver.readsPerPass(queueLength: 10) == 64 && NotifyReceiver.readsPerPass(queueLength: 512) == 2052
        )
    }

    @Test func aSenderAtItsLimitLosesItsOldestStatusOnlyOnePastIt() {
        var backlog = Backlog(perSender: 4, total: 16)
        for i in 0..<4 { #expect(backlog.add("STATUS=\(i)", from: 1, changesState: false) == nil) }
        #expect(backlog.count == 4)
        let dropped = backlog.add("STATUS=4", from: 1, changesState: false)
        #expect(dropped?.element == "STATUS=0" && dropped?.sender == 1 && dropped?.changedState == false)
        #expect(Self.drain(&backlog).map(\.element) == ["STATUS=1", "STATUS=2", "STATUS=3", "STATUS=4"])
    }

    /// Within one sender's flood, a state-changing message gives way only to another one.
    @Test func stateChangingMessagesOutliveStatusOnes() {
        var backlog = Backlog(perSender: 3, total: 16)
        _ = backlog.add("READY=1", from: 1, changesState: true)
        _ = backlog.add("STATUS=a", from: 1, changesState: false)
        _ = backlog.add("STATUS=b", from: 1, changesState: false)
        #expect(backlog.add("STATUS=c", from: 1, changesState: false)?.element == "STATUS=a")
        #expect(backlog.add("ERRNO=5", from: 1, changesState: true)?.element == "STATUS=b")
        // the latest status stays
        #expect(backlog.add("STATUS=d", from: 1, changesState: false)?.element == "STATUS=c")
        #expect(backlog.add("STOPPING=1", from: 1, changesState: true)?.element == "STATUS=d")
        // Only state-changing ones queued: a STATUS-only one is the one that goes, …
        #expect(backlog.add("STATUS=e", from: 1, changesState: false)?.element == "STATUS=e")
        // … and of state-changing ones the oldest (the latest state wins).
        #expect(backlog.add("EXTEND_TIMEOUT_USEC=1", from: 1, changesState: true)?.element == "READY=1")
        #expect(Self.drain(&backlog).map(\.element) == ["ERRNO=5", "STOPPING=1", "EXTEND_TIMEOUT_USEC=1"])
    }

    /// The whole backlog full: the sender with the most queued gives way, not the newcomer.
    @Test func aFullBacklogDropsFromTheSenderWithTheMost() {
        var backlog = Backlog(perSender: 4, total: 6)
        for i in 0..<4 { #expect(backlog.add("a\(i)", from: 1, changesState: false) == nil) }
        #expect(backlog.add("b0", from: 2, changesState: false) == nil)
        #expect(backlog.add("b1", from: 2, changesState: false) == nil)  // at the total: kept
        #expect(backlog.count == 6)
        let first = backlog.add("READY=1", from: 3, changesState: true)  // one past it
        #expect(first?.sender == 1 && first?.element == "a0")
        #expect(backlog.add("b2", from: 2, changesState: false)?.element == "a1")  // 1 has 3, 2 had 2
        // 1 and 2 have 2 and 3: the one with the most loses, even to its own newest.
        #expect(backlog.add("b3", from: 2, changesState: false)?.element == "b0")
        // A tie goes against the others: 1 (2 queued) sends while 2 has 2 as well.
        #expect(backlog.add("a4", from: 1, changesState: false)?.element == "b1")
        #expect(backlog.count == 6)
        #expect(Self.drain(&backlog).map(\.element) == ["a2", "b2", "READY=1", "a3", "b3", "a4"])
    }

    /// Round-robin service; `through` says how far everything has gone, drops included.
    @Test func sendersAreServedInTurnAndThroughCoversEverythingBefore() {
        var backlog = Backlog(perSender: 2, total: 16)
        _ = backlog.add("a1", from: 1, changesState: false)  // 1
        _ = backlog.add("a2", from: 1, changesState: false)  // 2
        #expect(backlog.add("a3", from: 1, changesState: false)?.element == "a1")  // 3; 1 dropped
        _ = backlog.add("b1", from: 2, changesState: false)  // 4
        #expect(backlog.added == 4)
        let order = Self.drain(&backlog)
        #expect(order.map(\.element) == ["a2", "b1", "a3"])
        // a2 (2): everything up to 2 gone (1 was dropped); b1 (4): 3 still queued; a3: all.
        #expect(order.map(\.through) == [2, 2, 4])
        #expect(backlog.next() == nil && backlog.count == 0)
    }
}

/// The log throttle on virtual time: instants are arguments, nothing sleeps.
@Suite struct LogThrottleTests {
    typealias Throttle = LogThrottle<pid_t>
    let t0 = ContinuousClock.now
    let nanosecond = Duration.nanoseconds(1)

    @Test func oneLinePerSenderPerIntervalThenTheCount() {
        var throttle = Throttle()
        #expect(throttle.admit(7, at: t0) == .log(suppressed: 0))
        #expect(throttle.admit(7, at: t0 + Throttle.interval - nanosecond) == .suppress)
        #expect(throttle.admit(8, at: t0) == .log(suppressed: 0))  // another sender is not held back
        #expect(throttle.admit(7, at: t0 + Throttle.interval) == .log(suppressed: 1))
    }

    @Test func heldBackLinesAreSummarisedOnceTheirIntervalHasPassed() {
        var throttle = Throttle()
        #expect(throttle.admit(7, at: t0) == .log(suppressed: 0))
        #expect(throttle.nextDue == nil)
        for i in 1...999 { #expect(throttle.admit(7, at: t0 + .microseconds(i)) == .suppress) }
        #expect(throttle.nextDue == t0 + Throttle.interval)
        #expect(throttle.due(at: t0 + Throttle.interval - nanosecond).isEmpty)
        #expect(throttle.due(at: t0 + Throttle.interval) == [.init(key: 7, suppressed: 999)])
        #expect(throttle.nextDue == nil && throttle.due(at: t0 + .seconds(5)).isEmpty)
    }

    /// At the end, whatever is held back is reported at once.
    @Test func theRemainingCountsAtTheEnd() {
        var throttle = Throttle()
        _ = throttle.admit(7, at: t0)
        _ = throttle.admit(7, at: t0)
        #expect(throttle.remaining() == [.init(key: 7, suppressed: 1)])
        #expect(throttle.remaining().isEmpty && throttle.nextDue == nil)
    }

    @Test func allSendersTogetherAtMostTheGlobalLimit() {
        var throttle = Throttle()
        let limit = Throttle.linesPerInterval
        for pid in 0..<pid_t(limit) { #expect(throttle.admit(pid, at: t0) == .log(suppressed: 0)) }  // at the limit
        #expect(throttle.admit(pid_t(limit), at: t0) == .suppress)  // one past it
        // The held-back one is reported in the next interval, which has room again.
        #expect(throttle.due(at: t0 + Throttle.interval) == [.init(key: pid_t(limit), suppressed: 1)])
        #expect(throttle.admit(0, at: t0 + Throttle.interval) == .log(suppressed: 0))
    }

    /// At most `trackedKeys` senders are remembered; lines from more are counted together.
    @Test func sendersBeyondTheTrackedOnesAreCountedTogether() {
        var throttle = Throttle()
        let tracked = Throttle.trackedKeys
        for pid in 0..<pid_t(tracked) { _ = throttle.admit(pid, at: t0) }
        #expect(throttle.admit(pid_t(tracked), at: t0) == .suppress)
        var summaries: [Throttle.Summary] = []
        for k in 1...(tracked / Throttle.linesPerInterval + 2) {
            let batch = throttle.due(at: t0 + Throttle.interval * k)
            #expect(batch.count <= Throttle.linesPerInterval)
            summaries += batch
        }
        #expect(throttle.nextDue == nil)
        // Every sender past the global limit has its own summary; the one past `tracked` not.
        #expect(summaries.filter { $0.key != nil }.count == tracked - Throttle.linesPerInterval)
        #expect(summaries.contains(.init(key: pid_t(tracked - 1), suppressed: 1)))
        #expect(summaries.contains(.init(key: nil, suppressed: 1)))
    }

    /// 10 000 rejected messages over 10 s from one sender: one line a second and a summary,
    /// and together they account for all 10 000.
    @Test func tenThousandMessagesMakeElevenLines() {
        let log = CollectedLog()
        var senderLog = ThrottledSenderLog()
        for i in 0..<10_000 {
            senderLog.warning(
                log.logger,
                "notify message from a process outside every app rejected",
                pid: 42,
                at: t0 + .milliseconds(i)
            )
        }
        senderLog.flush(log.logger, at: t0 + .seconds(11))
        let lines = log.lines
        #expect(lines.count == 11, "\(lines)")
        #expect(lines.last?.hasPrefix("suppressed 999 messages from pid 42") == true, "\(lines)")
        let counted = lines.compactMap { line in
            line.range(of: "suppressed ").map { Int(line[$0.upperBound...].prefix { $0.isNumber }) ?? 0 }
        }
        #expect(lines.count - 1 + counted.reduce(0, +) == 10_000)  // the summary is no message of its own
    }
}
