/// Why a document (a timeline, a scene) was rejected: where (a path into the document, or
/// line:column for JSON syntax) and what. `Document` only keeps the kinds apart as types
/// (`TimelineError`, `SceneError`), so a caller catches the one it expects.
public struct DocumentError<Document>: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where, e.g. `animations[2].keyframes.keyTimes[1]`; empty for the document as a whole.
    public let path: String
    /// What is wrong there, as a phrase that follows the path.
    public let message: String

    /// An error at `path`.
    public init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, or the message alone when the path is empty.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Why a timeline document was rejected.
public typealias TimelineError = DocumentError<TimelineDocument>
/// Why a scene was rejected.
public typealias SceneError = DocumentError<Scene>
