import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// Who may change things: root, the daemon's own user, and members of the control group
/// (the peer's uid's groups as the system's user database lists them — SO_PEERCRED only
/// carries the primary gid, and /proc of other users is hidden in the sandbox).
///
/// The group is looked up only for a peer that is neither root nor the daemon's user: the
/// lookup goes through NSS (files, then systemd's userdb directories: dozens of syscalls), and
/// it sat on every Launch's way to `presenting` (issue 18).
struct Authorization: Sendable {
    let controlGroup: String?
    /// The control group's gid by name (getgrnam; tests count the calls).
    let lookup: @Sendable (String) -> gid_t?

    init(controlGroup name: String?, lookup: @escaping @Sendable (String) -> gid_t? = Self.gid(named:)) {
        controlGroup = name
        self.lookup = lookup
    }

    func mayControl(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 || peer.uid == getuid() { return true }
        guard let name = controlGroup, let group = lookup(name) else { return false }
        if peer.gid == group { return true }
        return Self.groups(of: peer.uid, primary: peer.gid).contains(group)
    }

    static func gid(named name: String) -> gid_t? { getgrnam(name)?.pointee.gr_gid }

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
