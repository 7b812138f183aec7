import Synchronization
import Testing
import Varlink

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The control group is looked up (NSS: files, then systemd's userdb directories) only for a
/// peer that needs it: root's and the daemon's own calls — every Launch of a session manager
/// running as root — never wait for it (issue 18: it sat on the way to `presenting`).
@Suite struct AuthorizationTests {
    final class Lookups: Sendable {
        private let calls = Atomic(0)
        func add() { calls.add(1, ordering: .relaxed) }
        var count: Int { calls.load(ordering: .relaxed) }
    }

    @Test func rootAndTheDaemonsUserAreNotLookedUp() {
        let lookups = Lookups()
        let authorization = Authorization(controlGroup: "curtain") { _ in
            lookups.add()
            return 4242
        }
        #expect(authorization.mayControl(PeerCredentials(pid: 1, uid: 0, gid: 0)))
        #expect(authorization.mayControl(PeerCredentials(pid: 1, uid: getuid(), gid: getgid())))
        #expect(lookups.count == 0)
    }

    @Test func anotherUserIsCheckedAgainstTheGroup() {
        let lookups = Lookups()
        let authorization = Authorization(controlGroup: "curtain") { name in
            lookups.add()
            return name == "curtain" ? 4242 : nil
        }
        let other: uid_t = getuid() == 0 ? 4243 : 0  // never root or the daemon's user
        guard other != 0 else { return }  // (the test runs as root in CI)
        #expect(authorization.mayControl(PeerCredentials(pid: 1, uid: other, gid: 4242)))
        #expect(lookups.count == 1)
        #expect(!authorization.mayControl(PeerCredentials(pid: 1, uid: other, gid: 4244)))
        #expect(!Authorization(controlGroup: nil).mayControl(PeerCredentials(pid: 1, uid: other, gid: 4242)))
        #expect(!authorization.mayControl(nil))
    }
}
