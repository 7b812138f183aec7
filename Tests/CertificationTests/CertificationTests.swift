import Foundation
import Testing

/// org.varlink.certification in both directions against implementations no one here wrote:
/// python's reference (PyPI `varlink`) and Debian's `varlink-go-certification`.
@Suite(.serialized) struct CertificationTests {
    /// Our server, listening on `path`, until the test ends.
    func ourServer(_ path: String) async throws -> Child {
        let server = try Child(Tools.ours, ["--varlink=unix:\(path)"])
        #expect(await server.waitFor("Listening on", within: 30), "our server did not start: \(server.text)")
        return server
    }

    @Test func pythonClientAgainstOurServer() async throws {
        guard require(Tools.pythonVarlink, "python varlink") else { return }
        let path = socketPath()
        let server = try await ourServer(path)
        defer { server.stop() }
        let client = try Child(Tools.python, ["-m", "varlink.tests.test_certification", "--client", "--varlink=unix:\(path)"])
        let result = await client.finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Certification passed"), "\(result.output)")
    }

    @Test func ourClientAgainstPythonServer() async throws {
        guard require(Tools.pythonVarlink, "python varlink") else { return }
        let path = socketPath()
        let server = try Child(Tools.python, ["-u", "-m", "varlink.tests.test_certification", "--varlink=unix:\(path)"])
        defer { server.stop() }
        #expect(await server.waitFor("Listening on", within: 30), "python server did not start: \(server.text)")
        let client = try Child(Tools.ours, ["--client", "--varlink=unix:\(path)"])
        let result = await client.finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Certification passed"), "\(result.output)")
    }

    @Test func goClientAgainstOurServer() async throws {
        guard require(Tools.available(Tools.goCertification), "varlink-go-certification (Debian varlink-go)") else { return }
        let path = socketPath()
        let server = try await ourServer(path)
        defer { server.stop() }
        let client = try Child(Tools.goCertification, ["-client", "-varlink=unix:\(path)"])
        let result = await client.finish(within: 60)
        // It exits 0 whatever happened: its last line says whether the run got through.
        #expect(result.output.contains("End: 'true'"), "\(result.output)")
    }

    @Test func ourClientAgainstGoServer() async throws {
        guard require(Tools.available(Tools.goCertification), "varlink-go-certification (Debian varlink-go)") else { return }
        let path = socketPath()
        let server = try Child(Tools.goCertification, ["-varlink=unix:\(path)"])
        defer { server.stop() }
        // The Go server prints nothing when it is ready: wait for its socket file instead.
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: path), Date() < deadline, server.process.isRunning {
            _ = await server.waitFor("\u{0}never", within: 0.05)
        }
        let client = try Child(Tools.ours, ["--client", "--varlink=unix:\(path)"])
        let result = await client.finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Certification passed"), "\(result.output)")
    }

    /// Socket activation: python binds, passes fd 3 (LISTEN_FDS/LISTEN_FDNAMES=varlink), runs
    /// the client, then sends SIGTERM and waits: our server must exit promptly.
    @Test func pythonClientWithSocketActivation() async throws {
        guard require(Tools.pythonVarlink, "python varlink") else { return }
        let started = Date()
        let client = try Child(Tools.python, ["-m", "varlink.tests.test_certification", "--client",
                                              "--activate=\(Tools.ours) --varlink=$VARLINK_ADDRESS"])
        let result = await client.finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Certification passed"), "\(result.output)")
        #expect(Date().timeIntervalSince(started) < 60)
    }

    /// The reference server rejects a client that skips a step; ours must too.
    @Test func ourServerRejectsOutOfOrderCalls() async throws {
        guard require(Tools.pythonVarlink, "python varlink") else { return }
        let path = socketPath()
        let server = try await ourServer(path)
        defer { server.stop() }
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
        let result = await (try Child(Tools.python, ["-c", script])).finish(within: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("rejected org.varlink.certification.CertificationError"), "\(result.output)")
    }
}
