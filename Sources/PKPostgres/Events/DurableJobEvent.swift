#if Postgres
    import Foundation

    /// Something that happened to a durable job in this process: an enqueue through a ``DurableQueue``, or a claim or
    /// an outcome recorded by a ``DurableWorker`` of it (``DurableQueue/events(bufferingNewest:)``).
    ///
    /// An event is published only once the database change that makes it true has committed: an enqueue rolled back,
    /// or an outcome discarded because the worker lost the job's lease, publishes nothing.
    public struct DurableJobEvent: Sendable, Hashable {
        /// What happened.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// The job was enqueued (its transaction committed); a unique key that named an existing job publishes
            /// nothing.
            case inserted
            /// A worker claimed the job and starts an attempt.
            case started
            /// The job completed.
            case completed
            /// The job failed for good: its last attempt failed, or its error was permanent.
            case failed
            /// An attempt failed and the job will run again (its retry policy allows more attempts).
            case retried
            /// The job asked to run again later without spending its attempt (``DurableJobControl/snooze(_:)``).
            case snoozed
            /// The job was recorded cancelled: by request, by the job itself (``DurableJobControl/cancel(reason:)``),
            /// or because a cancellation was requested while its attempt failed.
            case cancelled
            /// The job discarded itself (``DurableJobControl/discard(reason:)``): failed for good, attempts left or not.
            case discarded
        }

        /// What happened.
        public var kind: Kind
        /// The job.
        public var job: JobID
        /// The job's kind (``DurableProcedure/kind``).
        public var jobKind: String
        /// The named queue the job is in.
        public var queue: String
        /// The attempt concerned (1 for the first); 0 for ``Kind/inserted``.
        public var attempt: Int
        /// When this process published the event (its own clock).
        public var at: Date
        /// The error recorded, for ``Kind/failed``, ``Kind/retried``, ``Kind/discarded`` and ``Kind/cancelled``.
        public var error: String?
        /// The name of the worker that claimed the job or recorded the outcome (or enqueued a periodic job's
        /// period); `nil` for an enqueue through the queue.
        public var worker: String?

        /// Creates an event (for tests of code that consumes events).
        public init(
            kind: Kind, job: JobID, jobKind: String, queue: String, attempt: Int, at: Date = Date(),
            error: String? = nil, worker: String? = nil
        ) {
            self.kind = kind
            self.job = job
            self.jobKind = jobKind
            self.queue = queue
            self.attempt = attempt
            self.at = at
            self.error = error
            self.worker = worker
        }
    }
#endif
