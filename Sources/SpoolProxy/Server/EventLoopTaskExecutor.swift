import NIOCore

/// A connection's event loop as the preferred executor of the task that answers it: the task's code, and every
/// continuation resumed for it from another thread (a `BlockingIO` lookup, another loop's origin response), runs
/// on the thread that reads and writes the connection's socket, as a single-threaded proxy's would. Without it
/// each resumption could land on any thread of the pool and hand the response's bytes over to the loop's thread
/// again; on a machine whose cores are busy every hand-off waits for a core.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class EventLoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
