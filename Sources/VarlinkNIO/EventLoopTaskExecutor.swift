import NIOCore

/// Runs tasks on a NIO event loop. A connection's serving task prefers its channel's event
/// loop, so a call is read, handled and answered on one thread: no hop to the concurrency pool
/// and back for every message. Handlers must therefore not block (they are async anyway).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
