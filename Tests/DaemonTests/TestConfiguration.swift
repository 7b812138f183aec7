import CurtainTestKit
import Foundation

/// The shipped configuration, adapted to a test's private directory: its own notify socket,
/// a socket anyone may open (for the permission test), and — unless `spawn` — apps without
/// exec, which report through io.curtain.App instead of being started.
enum TestConfiguration {
    static func write(into directory: URL, spawn: Bool = false, extra: String = "") throws -> String {
        let path = directory.appendingPathComponent("curtain.toml").path
        var text = try String(
            contentsOfFile: TestEnvironment.repository.appendingPathComponent("config/curtain.toml").path,
            encoding: .utf8
        )
        text = text.replacingOccurrences(of: "socket_mode = \"0660\"", with: "socket_mode = \"0666\"")
            .replacingOccurrences(
                of: "notify_socket = \"/run/curtain/notify\"",
                with: "notify_socket = \"\(directory.path)/notify-apps\""
            )
        if !spawn {
            text = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("exec = ") }
                .joined(separator: "\n")
        }
        try (text + extra).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
