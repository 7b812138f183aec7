import CurtainTestKit
import Foundation
import Testing

/// curtaind does not link Foundation: on a set-top box it is usually the only Swift process,
/// so every library it maps is its own cost, and Foundation with ICU was a third of its idle
/// memory (BENCHMARKS.md, scenario 5). A new `import Foundation` anywhere in curtaind's
/// modules, or a dependency that brings it, fails here.
@Suite struct LinkageTests {
    /// Libraries curtaind must not need: Foundation, its internationalization half and ICU.
    static let forbidden = [
        "libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so",
        "libFoundationNetworking.so", "libFoundationXML.so",
    ]

    /// The DT_NEEDED entries of an ELF file, by `readelf -d`.
    static func needed(_ path: String) async throws -> [String] {
        let (status, stdout, stderr) = try await TestProcess.run("/usr/bin/readelf", ["-d", "-W", path], within: 30)
        #expect(status == 0, "\(stderr)")
        // 0x0000000000000001 (NEEDED)  Shared library: [libswiftCore.so]
        return stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.lastIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test func curtaindDoesNotLinkFoundation() async throws {
        let curtaind = TestEnvironment.product("curtaind")
        let needed = try await Self.needed(curtaind)
        #expect(needed.contains("libswiftCore.so"), "readelf found no libraries in \(curtaind): \(needed)")
        for library in Self.forbidden {
            #expect(!needed.contains(library), "curtaind links \(library); see BENCHMARKS.md, scenario 5")
        }
    }

    /// Nor libsystemd (and its compression and crypto libraries): curtaind speaks sd_notify and
    /// the journal's protocol itself and loads sd-bus only when the unit backend connects
    /// (≈ 1 MiB of an idle curtaind: BENCHMARKS.md, "curtaind's memory").
    @Test func curtaindDoesNotLinkLibsystemd() async throws {
        let needed = try await Self.needed(TestEnvironment.product("curtaind"))
        #expect(needed.contains("libc.so.6"), "\(needed)")
        #expect(!needed.contains { $0.hasPrefix("libsystemd") }, "\(needed)")
    }

    /// The check itself sees Foundation where it is: a product that links it on purpose.
    @Test func theCheckSeesFoundationWhereItIsLinked() async throws {
        let needed = try await Self.needed(TestEnvironment.product("curtain-demo-app"))
        #expect(needed.contains("libFoundation.so"))
    }
}

/// curtaind's command line, read by hand since ArgumentParser (which maps FoundationEssentials)
/// left it: the options, --help, --version and usage errors as before.
@Suite struct CurtaindCommandLineTests {
    static let curtaind = TestEnvironment.product("curtaind")

    @Test func helpAndVersion() async throws {
        let help = try await TestProcess.run(Self.curtaind, ["--help"], within: 30)
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: curtaind [--config <path>] [--socket <path>]"))
        #expect(help.stdout.contains("--socket <path>         Listen here instead of daemon.socket"))
        let short = try await TestProcess.run(Self.curtaind, ["-h"], within: 30)
        #expect(short.stdout == help.stdout)
        let version = try await TestProcess.run(Self.curtaind, ["--version"], within: 30)
        #expect(version.status == 0)
        #expect(version.stdout.first?.isNumber == true, "\(version.stdout)")
    }

    @Test func usageErrorsExitWith64AndChangeNothing() async throws {
        for arguments in [
            ["--bogus"], ["extra"], ["--config"], ["--config", "a", "--config", "b"], ["--socket", "--config", "x"],
        ] {
            let run = try await TestProcess.run(Self.curtaind, arguments, within: 30)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("Error: "), "\(arguments): \(run.stderr)")
        }
    }

    /// `--config=PATH` works as `--config PATH` does: a configuration with an error is refused
    /// with its file:line:column (status 1), which shows the path was read.
    @Test func bothOptionFormsAreRead() async throws {
        let directory = TestEnvironment.temporaryDirectory("curtaind-options")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("bad.toml").path
        try "[daemon]\nsokcet = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        for arguments in [["--config", config], ["--config=\(config)"]] {
            let run = try await TestProcess.run(
                Self.curtaind,
                arguments,
                environment: ["JOURNAL_STREAM": ""],
                within: 30
            )
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("bad.toml:2:1"), "\(arguments): \(run.stderr)")
        }
    }

    /// The main thread waits for the daemon with every signal blocked; it does not leave
    /// through `pthread_exit` (an `async main`'s `dispatch_main`), whose unwinding kept
    /// `.eh_frame` pages resident (BENCHMARKS.md, "curtaind's memory"). SIGHUP and SIGTERM
    /// still reach the daemon, through its signal sources.
    @Test(.timeLimit(.minutes(1))) func theMainThreadWaitsAndSignalsStillArrive() async throws {
        let directory = TestEnvironment.temporaryDirectory("curtaind-main-thread")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("c.toml").path
        try "[daemon]\nnotify_socket = \"\(directory.path)/notify\"\n".write(
            toFile: config,
            atomically: true,
            encoding: .utf8
        )
        let daemon = try await TestProcess(
            Self.curtaind,
            ["--config", config, "--socket", directory.appendingPathComponent("s").path],
            environment: ["JOURNAL_STREAM": ""]
        )
        #expect(await daemon.waitFor("ready", within: 30), "\(daemon.output)")
        let status = try String(contentsOfFile: "/proc/\(daemon.pid)/task/\(daemon.pid)/status", encoding: .utf8)
        let fields = Dictionary(
            status.split(separator: "\n").compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            },
            uniquingKeysWith: { a, _ in a }
        )
        #expect(fields["State"]?.hasPrefix("S") == true, "\(fields["State"] ?? "")")  // not Z: it has not exited
        // Every signal but SIGKILL, SIGSTOP and glibc's own two.
        #expect(fields["SigBlk"] == "fffffffe7ffbfeff", "\(fields["SigBlk"] ?? "")")
        daemon.signal(SIGHUP)
        #expect(await daemon.waitFor("configuration reloaded", within: 30), "\(daemon.output)")
        daemon.signal(SIGTERM)
        #expect(await daemon.finish(within: 30).status == 0)
    }
}
