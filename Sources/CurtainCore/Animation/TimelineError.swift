/// Why a timeline document was rejected: where (a path into the document) and what.
public struct TimelineError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let message: String

    public init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
