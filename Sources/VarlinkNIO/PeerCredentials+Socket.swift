import NIOCore
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// `struct ucred` of <sys/socket.h> (glibc hides it behind _GNU_SOURCE, so Swift cannot see it):
/// pid_t, uid_t, gid_t, in that order.
private struct SocketCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// SO_PEERCRED from <asm-generic/socket.h>.
private let peerCredentialsOption: Int32 = 17

extension PeerCredentials {
    /// SO_PEERCRED of a connected Unix socket channel: the peer's pid, uid and gid as of
    /// connect(2), which the kernel vouches for.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        return provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(peerCredentialsOption)
        )
        .map { (credentials: SocketCredentials) in
            PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        }
        .recover { _ in nil }
    }
}
