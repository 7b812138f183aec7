import CurtainCore
import Testing

@testable import CurtainDaemon

/// The attachments' bookkeeping, without processes or sockets.
@Suite struct WarmStartsTests {
    @Test func deliveriesGoNewestFirstAndAnEndedLaunchShowsItsElementsAgain() async {
        var warm = WarmStarts()
        let (first, _) = warm.attach("shop")
        let (second, deliveries) = warm.attach("shop")
        _ = warm.attach("tv")
        #expect(warm.streams(of: "shop").map(\.token) == [second, first])
        #expect(warm.streams(of: "none").isEmpty)

        warm.delivered(LaunchID(7), app: "shop", token: second, hiding: ["logo"])
        warm.delivered(LaunchID(8), app: "shop", token: second, hiding: [])  // nothing to show again
        warm.ended(LaunchID(8))
        warm.ended(LaunchID(7))
        warm.ended(LaunchID(7))  // once only
        warm.detach("shop", second)
        var shown: [(LaunchID, [String])] = []
        for await item in deliveries { if case .ended(let id, let show) = item { shown.append((id, show)) } }
        #expect(shown.map(\.0) == [LaunchID(7)] && shown.first?.1 == ["logo"])
        #expect(warm.streams(of: "shop").map(\.token) == [first])
    }
}
