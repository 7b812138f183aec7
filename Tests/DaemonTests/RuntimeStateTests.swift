import CNotify
import CurtainCore
import CurtainTestKit
import Foundation
import Testing

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// `RuntimeState` on a tmpfs rewrites its file in place (one write of at most a page, padded
/// to the file's length) and elsewhere renames a temporary file over it; either way the file
/// reads back as the last state, whatever came before it.
@Suite struct RuntimeStateTests {
    static func launch(_ id: UInt64, app: String) -> RuntimeState.RecordedLaunch {
        RuntimeState.RecordedLaunch(
            id: id,
            route: .normal(app: app),
            destination: Destination(app: app, screen: "home"),
            requestedBoottimeMicroseconds: 1
        )
    }

    /// Whether the file `fd` was opened on is still linked (not renamed over).
    static func linked(_ fd: Int32) -> Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && status.st_nlink > 0
    }

    static func isTmpfs(_ directory: String) -> Bool {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        return fd >= 0 && curtain_filesystem_type(fd) == RuntimeState.InPlace.tmpfsMagic
    }

    /// A shorter state after a longer one, a state over a page, then a short one again: each
    /// reads back exactly; on a tmpfs the file is the same one until the long state.
    /// The encoder that keeps each launch's and process's JSON writes exactly what encoding the
    /// whole state writes, through launches and processes coming, changing and going.
    @Test func theCachingEncoderWritesWhatTheWholeEncodingWrites() {
        var encoder = RuntimeState.Encoder()
        var contents = RuntimeState.Contents()
        func check(_ step: String) {
            #expect(encoder.text(contents) == RuntimeState.text(contents), "\(step)")
        }
        check("empty")
        contents.launches = [Self.launch(1, app: "a"), Self.launch(2, app: "b\"quoted\"")]
        contents.lastLaunchID = 2
        check("two launches")
        contents.processes = [.init(launch: 1, app: "a", pid: 4242, startTime: 7)]
        check("a process")
        // The same pid and id again, now another process and launch: not the cached JSON.
        contents.processes = [.init(launch: 2, app: "b\"quoted\"", pid: 4242, startTime: 9)]
        contents.launches = [
            RuntimeState.RecordedLaunch(
                id: 2,
                route: .deeplink("demo://item/7"),
                destination: Destination(app: "demo", screen: "home", parameters: ["id": .string("7")]),
                requestedBoottimeMicroseconds: 1234
            )
        ]
        check("changed under the same keys")
        contents = RuntimeState.Contents(lastLaunchID: 9)
        check("all gone")
    }

    @Test(arguments: ["/dev/shm", NSTemporaryDirectory()])
    func everyStateReadsBack(parent: String) throws {
        guard FileManager.default.isWritableFile(atPath: parent) else { return }
        let directory = parent + "/curtain-state-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let inPlace = Self.isTmpfs(directory)
        let state = RuntimeState(directory: directory)
        let path = state.path

        state.setLaunches([Self.launch(1, app: "a-long-app-name"), Self.launch(2, app: "another")], lastID: 2)
        let first = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(first) }
        #expect(try RuntimeState.read(path) == state.current)
        state.setLaunches([], lastID: 2)
        #expect(try RuntimeState.read(path) == state.current)
        #expect(try RuntimeState.read(path)?.launches.isEmpty == true)
        #expect(Self.linked(first) == inPlace, "rewritten in place exactly on a tmpfs")

        // Over a page: renamed over (a write of more than a page could be torn).
        let many = (1...60).map { Self.launch(UInt64($0), app: "app-\($0)") }
        state.setLaunches(many, lastID: 60)
        let long = try #require(try RuntimeState.read(path))
        #expect(long == state.current)
        #expect(RuntimeState.text(state.current).count > RuntimeState.InPlace.limit)
        #expect(!Self.linked(first))

        state.setProcesses(
            launch: 60,
            app: "app-60",
            [ProcessTree.Entry(pid: 4242, parent: 1, startTime: 7, zombie: false)]
        )
        state.setLaunches([], lastID: 61)
        #expect(try RuntimeState.read(path) == state.current)
        #expect(try RuntimeState.read(path)?.processes.map(\.pid) == [4242])
        // Back under a page: in place again (once the long file has been replaced).
        let short = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(short) }
        state.setProcesses(launch: 60, app: "app-60", [])
        #expect(try RuntimeState.read(path) == state.current)
        #expect(Self.linked(short) == inPlace)
    }
}
