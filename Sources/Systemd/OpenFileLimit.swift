#if canImport(Glibc)
import Glibc
#endif

/// systemd starts services with a soft RLIMIT_NOFILE of 1024 (for select()'s sake) and a
/// high hard limit, and advises a program that needs many descriptors to raise its own soft
/// limit to the hard one: curtaind's max_connections is 4096, a load generator holds 1000.
public enum OpenFileLimit {
    public static func raiseToHardLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
