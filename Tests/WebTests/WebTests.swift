import CurtainTestKit
import CurtainWeb
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The stream's queue: a stalled browser gets the newest frame, and is dropped (not buffered
/// without end) when its pending events pass the limit.
@Suite struct StreamQueueTests {
    @Test func framesCoalesceToTheNewestAndNeverOvertakeEvents() {
        var q = StreamQueue(limit: 100)
        #expect(q.offer(frame: Array(repeating: 1, count: 10), launch: 1) == .queued)
        #expect(q.offer(frame: Array(repeating: 2, count: 10), launch: 1) == .coalesced)
        #expect(q.offer(event: Array(repeating: 3, count: 10)) == .queued)
        #expect(q.offer(frame: Array(repeating: 4, count: 10), launch: 1) == .queued)  // after the event: kept apart
        #expect(q.offer(frame: Array(repeating: 5, count: 10), launch: 1) == .coalesced)
        #expect(q.count == 3 && q.pendingBytes == 30)
        #expect(q.take() == Array(repeating: 2, count: 10))
        #expect(q.take() == Array(repeating: 3, count: 10))
        #expect(q.take() == Array(repeating: 5, count: 10))
        #expect(q.take() == nil && q.pendingBytes == 0)
    }

    @Test func theLimitIsPendingBytes() {
        var q = StreamQueue(limit: 100)
        #expect(q.offer(event: Array(repeating: 0, count: 60)) == .queued)
        #expect(q.offer(event: Array(repeating: 0, count: 40)) == .queued)  // at the limit
        #expect(q.offer(event: [0]) == .overflow)  // one past
        #expect(q.offer(frame: [0], launch: 1) == .overflow)
        _ = q.take()
        #expect(q.offer(frame: Array(repeating: 0, count: 60), launch: 1) == .queued)
        // a bigger frame past the limit
        #expect(q.offer(frame: Array(repeating: 0, count: 61), launch: 1) == .overflow)
    }
}

/// curtain-web as a process: HTTP limits at their boundaries, traversal refused, the page's
/// JavaScript unit tests (node --test), and the page in Chromium (browser_test.py).
@Suite(.serialized) struct WebServerTests {
    static func server(_ extra: [String] = []) async throws -> (TestProcess, port: Int) {
        let process = try await TestProcess(
            TestEnvironment.product("curtain-web"),
            ["--socket", "/nonexistent/curtain.sock", "--listen", "127.0.0.1:0"] + extra
        )
        #expect(await process.waitFor("serving http://", within: 10), "\(process.output)")
        let port = Int(process.output.split(separator: ":").last!.filter(\.isNumber))!
        return (process, port)
    }

    /// Sends `request` raw and returns what the server answered until it closed (or, with
    /// `headOnly`, the response head), within 5 s; the socket is returned open for streams.
    static func send(_ port: Int, _ request: String, headOnly: Bool = false) -> (String, Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard ok == 0 else {
            close(fd)
            return ("connect failed", -1)
        }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
            if headOnly, answer.count >= 4, String(decoding: answer, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        if !headOnly { close(fd) }
        return (String(decoding: answer, as: UTF8.self), headOnly ? fd : -1)
    }

    static func status(_ answer: String) -> Int { Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0 }

    @Test(.timeLimit(.minutes(1))) func limitsAtTheBoundary() async throws {
        let (web, port) = try await Self.server(["--max-clients", "2"])
        defer { web.signal(SIGKILL) }
        let answers = await offload { () -> [String: Int] in
            var r: [String: Int] = [:]
            // The head: target + header names and values, 8192 bytes at most ("/" 1 + "Host" "x" 5 + "X-Pad" 5 + n).
            let pad = { (n: Int) in "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "a", count: n))\r\n\r\n" }
            r["head at limit"] = Self.status(Self.send(port, pad(8192 - 11)).0)
            r["head one past"] = Self.status(Self.send(port, pad(8192 - 10)).0)
            let headers = { (n: Int) in
                "GET / HTTP/1.1\r\nHost: x\r\n" + (1..<n).map { "X-\($0): v\r\n" }.joined() + "\r\n"
            }
            r["64 headers"] = Self.status(Self.send(port, headers(64)).0)
            r["65 headers"] = Self.status(Self.send(port, headers(65)).0)
            r["a body"] = Self.status(Self.send(port, "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx").0)
            r["POST"] = Self.status(Self.send(port, "POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").0)
            // Streams: two at once, a third refused; one closed, a third admitted.
            let (first, fd1) = Self.send(port, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n", headOnly: true)
            let (second, fd2) = Self.send(port, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n", headOnly: true)
            r["stream 1"] = Self.status(first)
            r["stream 2"] = Self.status(second)
            r["stream 3"] = Self.status(Self.send(port, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n").0)
            close(fd1)
            var admitted = 0
            for _ in 0..<50 where admitted != 200 {  // the server sees the close asynchronously: bounded retries
                let (again, fd3) = Self.send(port, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n", headOnly: true)
                admitted = Self.status(again)
                if fd3 >= 0 { close(fd3) }
                // The poll interval of a bounded retry (50 tries); the close is seen only by the server.
                if admitted != 200 { usleep(20_000) }  // ok-sleep
            }
            r["stream after a close"] = admitted
            close(fd2)
            // Assets: only those the scene names, inside its directory.
            let get = { (path: String) in Self.status(Self.send(port, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n").0) }
            r["asset"] = get("/scenes/0/assets/logo.svg")
            r["scene json"] = get("/scenes/0/scene.json?width=375&height=667")
            r["not an asset"] = get("/scenes/0/assets/yula.scene.json")
            r["dot dot"] = get("/scenes/0/assets/../../../../etc/passwd")
            r["encoded dot dot"] = get("/scenes/0/assets/%2e%2e/%2e%2e/etc/passwd")
            r["encoded slash"] = get("/scenes/0/assets/..%2f..%2fetc%2fpasswd")
            r["replays off"] = get("/replays/x")
            // Contents sprites: well-formed requests only; at most WebLimits.spritePixels (2048×2048)
            // pixels: text scaled 200 times covers the whole clip, at the limit and one past.
            let sprite = { (matrix: String, clip: String, layer: Int) in
                get(
                    "/scenes/0/text/\(layer)?width=375&height=667&variant=0&bounds=0,0,327,60&matrix=\(matrix)&clip=\(clip)"
                )
            }
            r["sprite"] = sprite("1,0,0,1,24,403.5", "375,667", 1)
            r["sprite off the clip"] = get(
                "/scenes/0/text/1?width=375&height=667&variant=0&bounds=0,0,327,60&matrix=1,0,0,1,-900,0&clip=375,667"
            )
            r["sprite no such layer"] = sprite("1,0,0,1,24,403.5", "375,667", 2)
            r["sprite bad matrix"] = sprite("1,0,0,nan,24,403.5", "375,667", 1)
            r["sprite at the pixel limit"] = sprite("200,0,0,200,-24800,-1000", "2048,2048", 1)
            r["sprite one past"] = sprite("200,0,0,200,-24800,-1000", "2049,2048", 1)
            // Image sprites (yula's logo.svg: image layers 0, 1, 2): the same rules and limit; the
            // logo scaled 30 times covers the whole clip.
            let image = { (matrix: String, clip: String, layer: Int) in
                get(
                    "/scenes/0/image/\(layer)?width=375&height=667&variant=0&bounds=0,0,88,88&matrix=\(matrix)&clip=\(clip)"
                )
            }
            r["image"] = image("1,0,0,1,143.5,289.5", "375,667", 2)
            r["image off the clip"] = image("1,0,0,1,-900,0", "375,667", 2)
            r["image no such layer"] = image("1,0,0,1,143.5,289.5", "375,667", 3)
            r["image bad matrix"] = image("1,0,inf,1,143.5,289.5", "375,667", 2)
            r["image at the pixel limit"] = image("30,0,0,30,-100,-100", "2048,2048", 2)
            r["image one past"] = image("30,0,0,30,-100,-100", "2049,2048", 2)
            return r
        }
        #expect(
            answers == [
                "head at limit": 200, "head one past": 431, "64 headers": 200, "65 headers": 431, "a body": 413,
                "POST": 405,
                "stream 1": 200, "stream 2": 200, "stream 3": 503, "stream after a close": 200,
                "asset": 200, "scene json": 200, "not an asset": 404, "dot dot": 400, "encoded dot dot": 400,
                "encoded slash": 400, "replays off": 404,
                "sprite": 200, "sprite off the clip": 204, "sprite no such layer": 404, "sprite bad matrix": 400,
                "sprite at the pixel limit": 200, "sprite one past": 413,
                "image": 200, "image off the clip": 204, "image no such layer": 404, "image bad matrix": 400,
                "image at the pixel limit": 200, "image one past": 413,
            ],
            "\(web.output)"
        )
    }

    /// A client that sends part of a head and then nothing (slowloris) is closed once
    /// `--head-timeout` (WebLimits.requestHeadSeconds) has passed, not before; a complete head
    /// is answered, and a stream whose head came in time stays open beyond the limit.
    @Test(.timeLimit(.minutes(1))) func aSlowRequestHeadIsClosedAfterTheLimit() async throws {
        let limit = 0.5
        let (web, port) = try await Self.server(["--head-timeout", String(limit)])
        defer { web.signal(SIGKILL) }
        let (stream, streamFD) = await offload {
            Self.send(port, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n", headOnly: true)
        }
        defer { if streamFD >= 0 { close(streamFD) } }
        let (closedAfter, answer) = await offload { () -> (Double?, Int) in
            func now() -> Double {
                var t = timespec()
                clock_gettime(CLOCK_MONOTONIC, &t)
                return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
            }
            let start = now()
            // Part of a head, then silence: recv waits (at most 5 s, SO_RCVTIMEO) for the close.
            let (partial, fd) = Self.send(port, "GET / HTTP/1.1\r\nHost: x\r\n", headOnly: true)
            let elapsed = now() - start
            guard fd >= 0 else { return (nil, 0) }
            // EOF (0), not the receive timeout (-1, EAGAIN): the server closed it.
            var byte: UInt8 = 0
            let eof = recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
            close(fd)
            let closed: Double? = partial.isEmpty && eof ? elapsed : nil
            return (closed, Self.status(Self.send(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n").0))
        }
        #expect(Self.status(stream) == 200)
        let elapsed = try #require(closedAfter, "the partial head's connection was not closed within 5 s")
        #expect(elapsed >= limit && elapsed < 5, "closed after \(elapsed) s; the limit is \(limit) s")
        #expect(answer == 200)
        // The stream's head came in time: still open (no EOF) after the limit has passed.
        var byte: UInt8 = 0
        let n = recv(streamFD, &byte, 1, Int32(MSG_DONTWAIT))
        #expect(n != 0, "the stream was closed")
    }

    @Test(.timeLimit(.minutes(1))) func anAssetLinkedOutOfTheScenesDirectoryIsRefused() async throws {
        let directory = TestEnvironment.temporaryDirectory("web-scene")
        defer { try? FileManager.default.removeItem(at: directory) }
        let scene = TestEnvironment.repository.appendingPathComponent("scenes/yula/yula.scene.json")
        try FileManager.default.copyItem(at: scene, to: directory.appendingPathComponent("s.scene.json"))
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("logo.svg").path,
            withDestinationPath: "/etc/hostname"
        )
        let (web, port) = try await Self.server(["--scene", directory.appendingPathComponent("s.scene.json").path])
        defer { web.signal(SIGKILL) }
        let answer = await offload { Self.send(port, "GET /scenes/0/assets/logo.svg HTTP/1.1\r\nHost: x\r\n\r\n").0 }
        #expect(Self.status(answer) == 404, "\(answer)")
    }

    @Test(.timeLimit(.minutes(1))) func theMappingsUnitTests() async throws {
        let r = try await TestProcess.run(
            "/usr/bin/node",
            ["--test", TestEnvironment.repository.appendingPathComponent("Tests/WebTests/js").path]
        )
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    }

    /// browser_test.py's `live` part: a launch through a real curtaind streamed to the page
    /// until revealed, drawn with the scene GetScene names; curtaind restarted; hostile strings.
    @Test(.timeLimit(.minutes(3))) func thePageInChromium() async throws {
        let r = try await Self.browserTest("live")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    }

    /// browser_test.py's `text` part: text over a flat colour, moved by fractions of a pixel,
    /// faded, scaled, turned, another variant — the page's frames against `curtainctl render`'s
    /// PNGs (flat regions exact, edges within 24/255): the page draws the server's pango sprites.
    @Test(.timeLimit(.minutes(3))) func textMatchesCurtainctlRender() async throws {
        let r = try await Self.browserTest("text")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    }

    /// browser_test.py's `pixels` part: seed 000's frames on the page against `curtainctl
    /// render`'s PNGs. Text and images are CurtainRender's sprites; compositing is Chromium's.
    /// Edges within 24/255 per channel; flat regions within 1/255 (Skia and pixman round
    /// gradients and alpha blending one step apart), and, so that a flat region can still
    /// fail: where the overlay is opaque at most 250 flat pixels differ at all, and the hole
    /// (what changes with the destination's colour, on both sides) is the reference's within
    /// 50 pixels (browser_test.py's FLAT_TOLERANCE, FLAT_DIFFERING, HOLE_TOLERANCE).
    @Test(.timeLimit(.minutes(3)))
    func framesMatchCurtainctlRender() async throws {
        let r = try await Self.browserTest("pixels")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    }

    static func browserTest(_ part: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        let work = TestEnvironment.temporaryDirectory("web-\(part)")
        defer { try? FileManager.default.removeItem(at: work) }
        let bin = URL(fileURLWithPath: TestEnvironment.product("curtain-web")).deletingLastPathComponent().path
        let python = TestEnvironment.repository.appendingPathComponent(".venv/bin/python").path
        let script = TestEnvironment.repository.appendingPathComponent("Tests/WebTests/browser_test.py").path
        return try await TestProcess.run(
            python,
            [script, bin, TestEnvironment.repository.path, work.path, part],
            within: 150
        )
    }
}
