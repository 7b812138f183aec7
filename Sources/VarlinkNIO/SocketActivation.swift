#if canImport(Glibc)
import Glibc
#endif

/// systemd's socket-activation protocol (sd_listen_fds(3)): listening sockets passed from fd 3
/// on, counted by LISTEN_FDS, named by LISTEN_FDNAMES, meant for the process LISTEN_PID.
///
/// Kept here, without libsystemd, so the transport works under any activator (systemd,
/// `systemd-socket-activate`, the Varlink certification suite's `--activate`).
public enum SocketActivation {
    /// One passed socket.
    public struct Descriptor: Sendable, Hashable {
        /// The file descriptor, from `firstDescriptor` on.
        public let fd: Int32
        /// Its name from LISTEN_FDNAMES (`FileDescriptorName=` of the socket unit); `unknown` when
        /// none was passed.
        public let name: String
    }

    /// The first passed descriptor, by convention `SD_LISTEN_FDS_START`.
    public static let firstDescriptor: Int32 = 3

    /// Parses the variables. Returns [] when they are absent or meant for another process.
    public static func descriptors(environment: [String: String], pid: Int32) -> [Descriptor] {
        guard let pidText = environment["LISTEN_PID"], Int32(pidText) == pid,
            let countText = environment["LISTEN_FDS"], let count = Int32(countText), count > 0, count < 1024
        else { return [] }
        let names =
            environment["LISTEN_FDNAMES"].map {
                $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            } ?? []
        return (0..<count).map { i in
            Descriptor(fd: firstDescriptor + i, name: Int(i) < names.count ? names[Int(i)] : "unknown")
        }
    }

    /// The passed descriptors of this process; unsets the variables so children do not inherit
    /// them, and marks the descriptors close-on-exec, as sd_listen_fds(1) does.
    public static func takeDescriptors() -> [Descriptor] {
        var environment: [String: String] = [:]
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        let found = descriptors(environment: environment, pid: getpid())
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        for descriptor in found { _ = fcntl(descriptor.fd, F_SETFD, FD_CLOEXEC) }
        return found
    }

    /// The descriptor named `name`, or the only one when a single unnamed descriptor was passed.
    public static func listeningDescriptor(named name: String, in descriptors: [Descriptor]) -> Int32? {
        if let match = descriptors.first(where: { $0.name == name }) { return match.fd }
        if descriptors.count == 1, descriptors[0].name == "unknown" || descriptors[0].name.isEmpty {
            return descriptors[0].fd
        }
        return nil
    }
}
