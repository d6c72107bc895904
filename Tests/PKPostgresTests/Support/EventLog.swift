#if Postgres
    import Foundation
    import PKCore
    import PKPostgres

    /// Collects a stream of ``DurableJobEvent``s on a task of its own, for a test to read.
    ///
    /// Thread-safe: the events received are behind a PKMutex; the task only appends to them.
    final class EventLog: Sendable {
        private final class Received: Sendable {
            let events = PKMutex<[DurableJobEvent]>([])
        }

        private let received = Received()
        private let task: Task<Void, Never>

        init(_ events: DurableJobEvents) {
            task = Task { [received] in
                for await event in events { received.events.withLock { $0.append(event) } }
            }
        }

        /// Every event received so far, in order.
        var all: [DurableJobEvent] { received.events.withLock { $0 } }

        /// The events of `job`, in order.
        func events(of job: JobID) -> [DurableJobEvent] { all.filter { $0.job == job } }

        /// The kinds of the events of `job`, in order.
        func kinds(of job: JobID) -> [DurableJobEvent.Kind] { events(of: job).map(\.kind) }

        /// Stops listening (the consuming task is cancelled, which ends the stream).
        func stop() { task.cancel() }

        deinit { task.cancel() }
    }
#endif
