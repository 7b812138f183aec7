import Dispatch
import Varlink
import VarlinkNIO

#if canImport(Glibc)
import Glibc
#endif

/// varlink-certification: org.varlink.certification on Curtain's Varlink library, for the
/// official suites. Server: `varlink-certification --varlink=unix:PATH` (or socket-activated,
/// as `test_certification --activate` does). Client: `--client --varlink=unix:PATH`.
/// Exits promptly on SIGTERM or SIGINT.

/// Writes straight to a descriptor: output must reach a pipe at once (tests wait for it).
func say(_ text: String, to fd: Int32 = 1) {
    var bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
}

struct Options {
    var client = false
    var address: String? = nil

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        for argument in arguments {
            if argument == "--client" || argument == "-client" {
                options.client = true
            } else if argument.hasPrefix("--varlink=") || argument.hasPrefix("-varlink=") {
                options.address = String(argument.split(separator: "=", maxSplits: 1)[1])
            } else {
                say("usage: varlink-certification [--client] --varlink=unix:PATH", to: 2)
                exit(2)
            }
        }
        return options
    }

    /// `unix:PATH[;mode=…]` → PATH.
    var socketPath: String? {
        guard let address, address.hasPrefix("unix:") else { return nil }
        return String(address.dropFirst(5).split(separator: ";", maxSplits: 1).first ?? "")
    }
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let activated = SocketActivation.takeDescriptors()

let main = Task {
    do {
        if options.client {
            guard let path = options.socketPath else {
                say("--client needs --varlink=unix:PATH", to: 2)
                exit(2)
            }
            try await CertificationClient.run(path: path)
        } else {
            let listenAddress: VarlinkServer.Address
            if let fd = SocketActivation.listeningDescriptor(named: "varlink", in: activated) {
                listenAddress = .listeningDescriptor(fd)
            } else if let path = options.socketPath {
                listenAddress = .path(path)
            } else {
                say("give --varlink=unix:PATH or a socket-activated descriptor", to: 2)
                exit(2)
            }
            let service = try VarlinkService(
                info: .init(
                    vendor: "Curtain",
                    product: "varlink-certification",
                    version: "1",
                    url: "https://varlink.org"
                ),
                interfaces: [CertificationServer().interface()]
            )
            var configuration = VarlinkServer.Configuration()
            configuration.socketMode = 0o666
            try await VarlinkServer(service: service, address: listenAddress, configuration: configuration).run {
                say("Listening on \(options.address ?? "the activated socket")")
            }
        }
        exit(0)
    } catch is CancellationError {
        exit(0)
    } catch {
        say("varlink-certification: \(error)", to: 2)
        exit(1)
    }
}

// SIGTERM/SIGINT end the server: cancel its task, which closes everything, then exit.
signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
let signalSources = [SIGTERM, SIGINT].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
    source.setEventHandler { main.cancel() }
    source.resume()
    return source
}
dispatchMain()
