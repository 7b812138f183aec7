import Testing

@testable import CurtainDaemon

#if canImport(Glibc)
import Glibc
#endif

/// /proc/PID/stat as `ProcessTree` reads it: the fields after the command name, which may hold
/// spaces and parentheses, counted from its last ')'.
@Suite struct ProcessTreeTests {
    @Test func thisProcessIsReadAsTheKernelHasIt() throws {
        let entry = try #require(ProcessTree.entry(getpid()))
        #expect(entry.pid == getpid())
        #expect(entry.parent == getppid())
        #expect(entry.startTime > 0)
        #expect(!entry.zombie)
    }

    @Test func aCommandNameWithSpacesAndParenthesesDoesNotShiftTheFields() {
        let fields = (4...22).map(String.init).joined(separator: " ")  // ppid (4) … starttime (22)
        let stat = "4242 (a) (b ) c) Z \(fields) 23 24\n"
        #expect(
            ProcessTree.parse(Array(stat.utf8))
                == ProcessTree.Entry(pid: 4242, parent: 4, startTime: 22, zombie: true)
        )
    }

    @Test(arguments: [
        "", "4242 (x) S 1 2 3", "x (x) S " + (4...22).map(String.init).joined(separator: " "), "4242 x) S 1",
    ])
    func aTruncatedOrForeignLineIsNoEntry(stat: String) {
        #expect(ProcessTree.parse(Array(stat.utf8)) == nil)
    }
}
