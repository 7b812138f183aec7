import ArgumentParser
import CurtainctlSupport

#if canImport(Glibc)
import Glibc
#endif

/// `config` and `route` are carried out by curtainctl-config, next to this executable: the
/// TOML reader needs Foundation, which curtainctl does not load (start-up time).
enum ConfigurationHelper {
    static func run(_ arguments: [String], helper name: String = "curtainctl-config") -> Never {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let directory =
            length > 0
            ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).split(
                separator: "/",
                omittingEmptySubsequences: false
            ).dropLast().joined(separator: "/") : "."
        let helper = directory + "/" + name
        let argv = [helper] + arguments
        var pointers = argv.map { strdup($0) } + [nil]
        execv(helper, &pointers)
        var stderr = StandardError()
        print("curtainctl: cannot run \(helper): \(String(cString: strerror(errno))); reinstall Curtain", to: &stderr)
        exit(2)
    }
}

struct ConfigStub: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check a configuration file (curtainctl config check [PATH])."
    )
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
    func run() throws { ConfigurationHelper.run(["config"] + arguments) }
}

struct RouteStub: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Explain where a route would land (curtainctl route explain …)."
    )
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
    func run() throws { ConfigurationHelper.run(["route"] + arguments) }
}

/// `render` is carried out by curtainctl-render (cairo, pango and librsvg stay out of curtainctl).
struct RenderStub: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract:
            "Render a transition over its scene into PNGs (curtainctl render TRANSITION --at T… --out DIR | --sheet FILE)."
    )
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
    func run() throws { ConfigurationHelper.run(["render"] + arguments, helper: "curtainctl-render") }
}

struct SceneStub: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene",
        abstract: "Check a scene file (curtainctl scene check PATH)."
    )
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
    func run() throws { ConfigurationHelper.run(["scene"] + arguments, helper: "curtainctl-render") }
}
