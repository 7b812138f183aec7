import CurtainTestKit
import Foundation
import Testing

/// org.varlink.certification in both directions against implementations no one here wrote:
/// python's reference (PyPI `varlink`) and Debian's `varlink-go-certification`.
@Suite(.serialized) struct CertificationTests {
    /// Our server, listening on `path`, until the test ends.
    func ourServer(_ path: String) async throws -> TestProcess {
        let server = try await TestProcess(Tools.ours, ["--varlink=unix:\(path)"])
        #expect(await server.waitFor("Listening on", within: 30), "our server did not start: \(server.output)")
        return server
    }

    @Test func pythonClientAgainstOurServer() async throws {
        guard require(await Tools.pythonVarlink(), "python varlink") else { return }
        let path = socketPath()
        let server = try await ourServer(path)
        let client = try await TestProcess(
            Tools.python,
            ["-m", "varlink.tests.test_certification", "--client", "--varlink=unix:\(path)"]
        )
        let result = await client.finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Certification passed"), "\(result.output)")
        await server.stop()
    }

    @Test func ourClientAgainstPythonServer() async throws {
        guard require(await Tools.pythonVarlink(), "python varlink") else { return }
        let path = socketPath()
        let server = try await TestProcess(
            Tools.python,
            ["-u", "-m", "varlink.tests.test_certification", "--varlink=unix:\(path)"]
        )
        #expect(await server.waitFor("Listening on", within: 30), "python server did not start: \(server.output)")
        let client = try await TestProcess(Tools.ours, ["--client", "--varlink=unix:\(path)"])
        let result = await client.finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Certification passed"), "\(result.output)")
        await server.stop()
    }

    @Test func goClientAgainstOurServer() async throws {
        guard
            require(
                TestEnvironment.isExecutable(Tools.goCertification) && TestEnvironment.isExecutable(Tools.activator),
                "varlink-go-certification (Debian varlink-go)"
            )
        else { return }
        let path = socketPath()
        let server = try await ourServer(path)
        let client = try await TestProcess(Tools.goCertification, ["-client", "-varlink=unix:\(path)"])
        let result = await client.finish(within: 60)
        // It exits 0 whatever happened: its last line says whether the run got through.
        #expect(result.output.contains("End: 'true'"), "\(result.output)")
        await server.stop()
    }

    @Test func ourClientAgainstGoServer() async throws {
        guard
            require(
                TestEnvironment.isExecutable(Tools.goCertification) && TestEnvironment.isExecutable(Tools.activator),
                "varlink-go-certification (Debian varlink-go)"
            )
        else { return }
        let path = socketPath()
        // The Go server prints nothing when ready, but it takes a socket from systemd: the
        // activator listens first, so a connection waits in the backlog until the server runs.
        let server = try await TestProcess(
            Tools.activator,
            ["-l", path, "--fdname=varlink", Tools.goCertification, "-varlink=unix:\(path).unused"]
        )
        #expect(await server.waitFor("Listening on", within: 30), "activator did not start: \(server.output)")
        let client = try await TestProcess(Tools.ours, ["--client", "--varlink=unix:\(path)"])
        let result = await client.finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Certification passed"), "\(result.output)")
        await server.stop()
    }

    /// Socket activation: python binds, passes fd 3 (LISTEN_FDS/LISTEN_FDNAMES=varlink), runs
    /// the client, then sends SIGTERM and waits: our server must exit promptly.
    @Test func pythonClientWithSocketActivation() async throws {
        guard require(await Tools.pythonVarlink(), "python varlink") else { return }
        let client = try await TestProcess(
            Tools.python,
            [
                "-m", "varlink.tests.test_certification", "--client",
                "--activate=\(Tools.ours) --varlink=$VARLINK_ADDRESS",
            ]
        )
        let result = await client.finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Certification passed"), "\(result.output)")
    }

    /// The reference server rejects a client that skips a step; ours must too.
    @Test func ourServerRejectsOutOfOrderCalls() async throws {
        guard require(await Tools.pythonVarlink(), "python varlink") else { return }
        let path = socketPath()
        let server = try await ourServer(path)
        let script = """
            import varlink, sys
            with varlink.Client.new_with_address('unix:\(path)') as client, client.open('org.varlink.certification') as con:
                cid = con.Start()['client_id']
                con.Test01(cid)
                try:
                    con.Test03(cid, 1)
                    print('accepted'); sys.exit(1)
                except varlink.VarlinkError as e:
                    print('rejected', e.error()); sys.exit(0)
            """
        let result = await (try await TestProcess(Tools.python, ["-c", script])).finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("rejected org.varlink.certification.CertificationError"), "\(result.output)")
        await server.stop()
    }
}
