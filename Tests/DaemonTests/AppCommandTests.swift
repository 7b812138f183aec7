import Testing

@testable import CurtainDaemon

/// What an app is started with: arguments and variables that execve cannot carry as given (a
/// NUL byte, a name with `=`) refuse the start; curtaind's environment is inherited with the
/// app's and the launch's variables set over it, a later setting winning.
@Suite struct AppCommandTests {
    @Test func argumentsWithANulByteAreRefused() throws {
        #expect(
            try AppCommand.arguments(["/bin/app", "--screen", "home"]).get() == [
                Array("/bin/app".utf8), Array("--screen".utf8), Array("home".utf8),
            ]
        )
        #expect(throws: AppCommand.Refusal(description: "argument 2 contains a NUL byte")) {
            try AppCommand.arguments(["/bin/app", "--screen", "ho\0me"]).get()
        }
    }

    @Test func theLaunchsVariablesAreSetOverTheInheritedOnes() throws {
        let inherited = ["PATH=/usr/bin", "LANG=C", "LANGUAGE=en", "CURTAIN_SCREEN=stale", "EMPTY", "LAN"]
            .map { Array($0.utf8) }
        let merged = try AppCommand.environment(
            inherited,
            overriddenBy: [("LANG", "de_DE.UTF-8"), ("CURTAIN_SCREEN", "home"), ("LANG", "fr_FR.UTF-8"), ("X", "")]
        ).get().map { String(decoding: $0, as: UTF8.self) }
        // A name that begins another (LANG, LANGUAGE; LAN) replaces only itself.
        #expect(
            merged == ["PATH=/usr/bin", "LANGUAGE=en", "EMPTY", "LAN", "LANG=fr_FR.UTF-8", "CURTAIN_SCREEN=home", "X="]
        )
    }

    @Test(arguments: [
        ("", "x", "environment variable '': a name must be non-empty, without '=' or a NUL byte"),
        ("A=B", "x", "environment variable 'A=B': a name must be non-empty, without '=' or a NUL byte"),
        ("A\0", "x", "environment variable 'A\0': a name must be non-empty, without '=' or a NUL byte"),
        ("A", "x\0y", "environment variable 'A': its value contains a NUL byte"),
    ])
    func variablesExecveCannotCarryAreRefused(name: String, value: String, refusal: String) {
        #expect(throws: AppCommand.Refusal(description: refusal)) {
            try AppCommand.environment([Array("PATH=/usr/bin".utf8)], overriddenBy: [(name, value)]).get()
        }
    }
}
