import CurtainDaemon
import Logging
import Systemd

// Test kit for Tests/SystemdTests: logs through JournalLogHandler or notifies through
// Notifier, as a separate process (the journal test runs it inside a private mount namespace
// with its own journald).
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "log":
    var logger = Logger(label: "probe") { JournalLogHandler(label: $0, identifier: "curtain-probe") }
    logger.logLevel = .debug
    logger[metadataKey: "curtain_app"] = "shop"
    logger.log(
        .launchRevealed,
        "launch revealed",
        [
            "curtain_launch_id": "42",
            "curtain.route": "deeplink",
            "_trusted": "dropped",
        ]
    )
case "log-more":
    // The protocol's two other forms: a value with a newline (binary-safe), and an entry
    // larger than a datagram can be (a sealed memfd; the socket's send buffer is at most 16 MiB).
    let logger = Logger(label: "probe") { JournalLogHandler(label: $0, identifier: "curtain-probe") }
    logger.notice("first line\nsecond line", metadata: ["curtain_case": "multiline"])
    logger.notice("\(String(repeating: "x", count: 20 << 20))", metadata: ["curtain_case": "large"])
case "notify":
    let notifier = Notifier()
    let delivered =
        notifier.ready(status: "idle") && notifier.reloading() && notifier.status("2 launches")
        && notifier.watchdog() && notifier.stopping()
    print(delivered ? "delivered" : "not delivered")
case "watchdog":
    print(Notifier().watchdogInterval.map { "\($0)" } ?? "off")
default:
    print("usage: systemd-probe log|log-more|notify|watchdog")
}
