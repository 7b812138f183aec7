import CurtainCore

extension Configuration.App {
    /// A placeholder element of `exec`: a whole argv element, never part of one, so a
    /// parameter's value always stays one argument and never meets a shell.
    enum Placeholder: Equatable {
        case screen
        case parameter(String)

        init?(_ element: String) {
            guard element.hasPrefix("{"), element.hasSuffix("}") else { return nil }
            let inner = element.dropFirst().dropLast()
            if inner == "screen" {
                self = .screen
                return
            }
            guard inner.hasPrefix("param:"), inner.count > 6 else { return nil }
            self = .parameter(String(inner.dropFirst(6)))
        }
    }

    /// The argv for launching this app at `destination`: `{screen}` becomes the screen,
    /// `{param:NAME}` the parameter's value (or an empty argument when the route has none).
    public func arguments(for destination: Destination) -> [String] {
        exec.map { element in
            switch Placeholder(element) {
            case .screen?: destination.screen
            case .parameter(let name)?: destination.parameters[name]?.description ?? ""
            case nil: element
            }
        }
    }

    /// Elements that look like placeholders but are none (`{scren}`, `{param:}`).
    var malformedPlaceholders: [String] {
        exec.filter { $0.hasPrefix("{") && $0.hasSuffix("}") && Placeholder($0) == nil }
    }
}

/// The configuration a running daemon uses: replaced only by one that loaded without a single
/// problem, so a bad edit followed by a reload changes nothing.
public struct ConfigurationHolder: Sendable {
    /// The running configuration with its transitions compiled (see `ConfigurationSnapshot`).
    public private(set) var snapshot: ConfigurationSnapshot
    public var current: Configuration { snapshot.configuration }
    /// How many times a reload replaced the configuration.
    public private(set) var generation = 0

    public init(_ configuration: Configuration) { snapshot = ConfigurationSnapshot(configuration) }

    /// Adopts a configuration that was loaded without problems, unless it would drop every
    /// app of the running one: an empty or truncated file (a power cut during a write looks
    /// like that) must not silently leave the device with nothing to launch. `allowEmpty`
    /// is the caller saying that this is what it wants.
    public mutating func adopt(
        _ configuration: Configuration,
        file: String = "",
        allowEmpty: Bool = false
    ) throws(ConfigurationErrors) {
        if let refusal = refusal(of: configuration, file: file, allowEmpty: allowEmpty) {
            throw ConfigurationErrors(errors: [refusal])
        }
        snapshot = ConfigurationSnapshot(configuration)
        generation += 1
    }

    /// Why `candidate` may not replace the running configuration, if it may not.
    public func refusal(of candidate: Configuration, file: String, allowEmpty: Bool) -> ConfigurationError? {
        guard !allowEmpty, candidate.apps.isEmpty, !current.apps.isEmpty else { return nil }
        let names = current.apps.map(\.name).joined(separator: ", ")
        return ConfigurationError(
            file: file,
            line: 1,
            column: 1,
            keyPath: "apps",
            message: "the new configuration has no apps, the running one has \(current.apps.count) (\(names)); "
                + "an empty or truncated file? To drop every app, reload with allow_empty (curtainctl reload --allow-empty)"
        )
    }

    /// Loads `text`; on any problem throws them all and keeps the current configuration.
    public mutating func reload(toml text: String, file: String, allowEmpty: Bool = false) throws(ConfigurationErrors) {
        try adopt(try Configuration(toml: text, file: file), file: file, allowEmpty: allowEmpty)
    }
}
