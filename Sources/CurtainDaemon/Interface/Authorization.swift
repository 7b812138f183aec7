import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// Who may change things: root, the daemon's own user, and members of the control group
/// (the peer's uid's groups as the system's user database lists them — SO_PEERCRED only
/// carries the primary gid, and /proc of other users is hidden in the sandbox).
struct Authorization: Sendable {
    let controlGroup: gid_t?

    init(controlGroup name: String?) {
        controlGroup = name.flatMap { getgrnam($0)?.pointee.gr_gid }
    }

    func mayControl(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 || peer.uid == getuid() { return true }
        guard let group = controlGroup else { return false }
        if peer.gid == group { return true }
        return Self.groups(of: peer.uid, primary: peer.gid).contains(group)
    }

    static func groups(of uid: uid_t, primary: gid_t) -> [gid_t] {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return [primary] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primary, &groups, &count) >= 0 else { return [primary] }
        }
        return Array(groups.prefix(Int(count)))
    }
}
