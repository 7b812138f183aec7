/// One problem in a configuration file, with where it is.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// Where in the document: `apps[1].default_screen`.
    public var keyPath: String
    public var message: String

    public init(file: String, line: Int, column: Int, keyPath: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        "\(file):\(line):\(column): \(keyPath.isEmpty ? "" : "\(keyPath): ")\(message)"
    }
}

/// Every problem found (a configuration is checked whole, not up to the first error).
public struct ConfigurationErrors: Error, Sendable, Hashable, CustomStringConvertible {
    public var errors: [ConfigurationError]
    public init(errors: [ConfigurationError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
