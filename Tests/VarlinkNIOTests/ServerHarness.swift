import Foundation
import NIOCore
import Synchronization
import Testing
import Varlink

@testable import VarlinkNIO

/// Runs a server for the duration of `body`, on a fresh socket path; waits (bounded) until it
/// listens, and cancels it afterwards, waiting for it to stop.
func withServer<R>(
    _ configuration: VarlinkServer.Configuration = .init(),
    service: VarlinkService? = nil,
    _ body: (String, VarlinkServer) async throws -> R
) async throws -> R {
    let path = temporarySocketPath()
    let server = VarlinkServer(
        service: try service ?? makeTestService(),
        address: .path(path),
        configuration: configuration
    )
    let (listening, listeningContinuation) = AsyncStream<Void>.makeStream()
    let task = Task {
        try await server.run(onListening: {
            listeningContinuation.yield()
            listeningContinuation.finish()
        })
    }
    for await _ in listening { break }
    defer { task.cancel() }
    let result = try await body(path, server)
    task.cancel()
    _ = await task.result
    return result
}
