import CurtainCore
import Synchronization
import Testing
import Varlink

@testable import CurtainDaemon

/// An observer that stops reading: its frames coalesce, it is cut off after the grace period
/// with ObserverTooSlow, and a healthy observer beside it misses nothing.
@Suite struct ObserverStreamTests {
    final class Recorder: Sendable {
        let sent = Mutex<[[String: JSONValue]]>([])
        let disconnected = Mutex<VarlinkError?>(nil)
    }

    @Test(.timeLimit(.minutes(1))) func aStalledObserverIsCoalescedThenDropped() async throws {
        let broadcaster = Broadcaster()
        let stalled = broadcaster.add(.init(launch: nil, frames: true), limit: 64)
        let healthy = broadcaster.add(.init(launch: nil, frames: true), limit: 64)
        let recorder = Recorder()
        let (gone, goneSignal) = AsyncStream.makeStream(of: Void.self)
        let (stuck, stuckSignal) = AsyncStream.makeStream(of: Void.self)
        // A peer that never reads: its first write never completes until the connection is cut.
        let (cut, cutSignal) = AsyncStream.makeStream(of: Void.self)
        let stalledRequest = VarlinkService.Request(
            call: try VarlinkCall(decoding: Array(#"{"method":"io.curtain.Launcher.Watch","more":true}"#.utf8)),
            peer: nil
        ) { error in
            recorder.disconnected.withLock { $0 = error }
            cutSignal.finish()
            goneSignal.finish()
        }
        let stalledStream = Task {
            try await LauncherService<ContinuousClock>.stream(
                stalled.mailbox,
                only: nil,
                grace: 0.2,
                request: stalledRequest
            ) { _, _ in
                stuckSignal.yield()
                for await _ in cut {}
                throw CancellationError()  // the write fails once the connection is closed
            }
        }
        let healthyRequest = VarlinkService.Request(
            call: try VarlinkCall(decoding: Array(#"{"method":"io.curtain.Launcher.Watch","more":true}"#.utf8)),
            peer: nil
        )
        let healthyStream = Task {
            try await LauncherService<ContinuousClock>.stream(
                healthy.mailbox,
                only: nil,
                grace: 5,
                request: healthyRequest
            ) { event, _ in
                recorder.sent.withLock { $0.append(event) }
            }
        }

        func state(_ to: LaunchState) -> LaunchEvent {
            .state(LaunchTransition(launch: LaunchID(1), from: nil, to: to, reason: "", time: 0))
        }
        broadcaster.publish(state(.presenting))
        for await _ in stuck { break }  // the stalled observer is blocked in its first write
        for index in 0..<500 {
            broadcaster.publish(
                LaunchFrame(
                    launch: LaunchID(1),
                    index: index,
                    time: 0,
                    transition: .appear,
                    keys: [],
                    values: [],
                    progress: 0
                )
            )
        }
        broadcaster.publish(state(.holding))
        #expect(stalled.mailbox.count <= 2)  // one coalesced frame and the event, not 501 items
        for await _ in gone {}  // cut off after the grace period
        #expect(recorder.disconnected.withLock { $0?.name } == "io.curtain.Launcher.ObserverTooSlow")
        _ = await stalledStream.result

        broadcaster.closeAll()
        _ = await healthyStream.result
        let sent = recorder.sent.withLock { $0 }
        #expect(sent.filter { $0["kind"] == "state" }.count == 2)  // every state event
        #expect(sent.first?["to"] == "presenting" && sent.last?["to"] == "holding")
        #expect(sent.count >= 3)  // and frames, in order
        let frames = sent.compactMap { e -> Int64? in if case .int(let i)? = e["frame"] { i } else { nil } }
        #expect(frames == frames.sorted())
    }
}
