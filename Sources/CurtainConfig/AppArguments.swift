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
            if inner == "screen" { self = .screen; return }
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
    public private(set) var current: Configuration
    /// How many times a reload replaced the configuration.
    public private(set) var generation = 0

    public init(_ configuration: Configuration) { current = configuration }

    /// Adopts a configuration that was loaded without problems.
    public mutating func adopt(_ configuration: Configuration) {
        current = configuration
        generation += 1
    }

    /// Loads `text`; on any problem throws them all and keeps the current configuration.
    public mutating func reload(toml text: String, file: String) throws(ConfigurationErrors) {
        adopt(try Configuration(toml: text, file: file))
    }
}
