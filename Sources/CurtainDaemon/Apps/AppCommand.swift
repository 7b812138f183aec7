import CNotify

#if canImport(Glibc)
import Glibc
#endif

/// An app's command line and environment as execve takes them, checked, and its spawn.
///
/// Arguments and variables may carry a destination's parameters, which come from clients: a
/// NUL byte would cut a C string short and an `=` in a name would set another variable, so
/// either refuses the launch with what is wrong rather than starting something else.
enum AppCommand {
    /// Why a command line or environment cannot be passed to execve.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// The arguments as NUL-free bytes (the terminator is added at the spawn).
    static func arguments(_ argv: [String]) -> Result<[[UInt8]], Refusal> {
        var out: [[UInt8]] = []
        out.reserveCapacity(argv.count)
        for (index, argument) in argv.enumerated() {
            let bytes = Array(argument.utf8)
            if bytes.contains(0) { return .failure(Refusal(description: "argument \(index) contains a NUL byte")) }
            out.append(bytes)
        }
        return .success(out)
    }

    /// `inherited` ("KEY=value" entries, as `POSIX.environmentEntries` reads them) with
    /// `overrides` set in order (a later one wins), each entry without its terminator. The few
    /// overridden names are compared with each inherited one, nothing hashed: this runs at
    /// every spawn.
    static func environment(
        _ inherited: [[UInt8]],
        overriddenBy overrides: [(String, String)]
    ) -> Result<
        [[UInt8]], Refusal
    > {
        var keys: [[UInt8]] = []
        var entries: [[UInt8]] = []
        for (name, value) in overrides {
            let key = Array(name.utf8)
            guard !key.isEmpty, !key.contains(0), !key.contains(UInt8(ascii: "=")) else {
                return .failure(
                    Refusal(
                        description:
                            "environment variable '\(name)': a name must be non-empty, without '=' or a NUL byte"
                    )
                )
            }
            var entry = key
            entry.append(UInt8(ascii: "="))
            entry.append(contentsOf: value.utf8)
            if entry[(key.count + 1)...].contains(0) {
                return .failure(Refusal(description: "environment variable '\(name)': its value contains a NUL byte"))
            }
            if let at = keys.firstIndex(of: key) {
                entries[at] = entry
            } else {
                keys.append(key)
                entries.append(entry)
            }
        }
        var merged: [[UInt8]] = []
        merged.reserveCapacity(inherited.count + entries.count)
        for entry in inherited {
            let overridden = keys.contains { key in
                (entry.count == key.count || (entry.count > key.count && entry[key.count] == UInt8(ascii: "=")))
                    && entry.starts(with: key)
            }
            if !overridden { merged.append(entry) }
        }
        merged.append(contentsOf: entries)
        return .success(merged)
    }

    /// A spawn's error number (posix_spawn's, or the exec's in the child: ENOENT, EACCES, …).
    struct SpawnFailure: Error, Equatable {
        let number: Int32
    }

    /// Spawns `program` (an absolute path) with `arguments` and `environment` in a session of
    /// its own, stdout and stderr to `output` (`curtain_spawn`): its pid and a pidfd.
    static func spawn(
        _ program: String,
        _ arguments: [[UInt8]],
        _ environment: [[UInt8]],
        directory: String?,
        output: Int32
    ) -> Result<(pid: pid_t, pidfd: Int32), SpawnFailure> {
        withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                var pid: pid_t = 0
                var pidfd: Int32 = -1
                let rc = curtain_spawn(program, argv, envp, directory, output, &pid, &pidfd)
                return rc == 0 ? .success((pid, pidfd)) : .failure(SpawnFailure(number: rc))
            }
        }
    }

    /// `strings` NUL-terminated in one buffer, and the NULL-ended pointer array execve reads.
    private static func withCStrings<R>(
        _ strings: [[UInt8]],
        _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
    ) -> R {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(strings.reduce(0) { $0 + $1.count + 1 })
        var offsets: [Int] = []
        offsets.reserveCapacity(strings.count)
        for string in strings {
            offsets.append(buffer.count)
            buffer.append(contentsOf: string)
            buffer.append(0)
        }
        return buffer.withUnsafeMutableBytes { raw in
            let bytes = raw.bindMemory(to: CChar.self)
            var pointers: [UnsafeMutablePointer<CChar>?] = offsets.map { bytes.baseAddress! + $0 }
            pointers.append(nil)
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }
}
