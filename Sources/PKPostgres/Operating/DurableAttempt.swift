#if Postgres
    import Foundation

    /// One attempt of a durable job, as ``DurableQueue/attempts(of:)`` reports it: which worker ran it, when, and
    /// how it ended. An attempt given back without counting (a worker shutting down, a job this build could not
    /// read) leaves no record.
    public struct DurableAttempt: Sendable, Hashable {
        /// How an attempt ended.
        public enum Outcome: String, Sendable, Hashable, Codable {
            /// The job completed.
            case completed
            /// The attempt failed: the procedure's error, a timeout, or a lease that expired (the worker died).
            case failed
            /// The job was cancelled while this attempt ran.
            case cancelled
        }

        /// The attempt's number, from 1.
        public let number: Int
        /// The worker that ran it (its ``DurableWorker/name``).
        public let worker: String
        /// When the worker claimed it.
        public let startedAt: Date
        /// When its outcome was recorded; `nil` while it runs.
        public let finishedAt: Date?
        /// How it ended; `nil` while it runs.
        public let outcome: Outcome?
        /// The error it ended with, if it did not complete.
        public let error: String?

        /// How long it ran, or has run so far when `now` is given for one still running.
        public func duration(now: Date = Date()) -> TimeInterval {
            (finishedAt ?? now).timeIntervalSince(startedAt)
        }

        init(row: PostgresRow) throws {
            number = Int(try row.int64("attempt"))
            worker = row["worker"] ?? ""
            startedAt = Date(timeIntervalSince1970: row["started_at"].flatMap(Double.init) ?? 0)
            finishedAt = row["finished_at"].flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
            outcome = row["outcome"].flatMap(Outcome.init(rawValue:))
            error = row["error"]
        }
    }
#endif
