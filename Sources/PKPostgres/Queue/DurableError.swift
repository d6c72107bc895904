#if Postgres
    /// The errors PKPostgres reports besides ``PostgresError``.
    public enum DurableError: Error, Sendable, Hashable, CustomStringConvertible {
        /// No procedure type of this kind is registered on the queue.
        case unknownKind(String)
        /// Two procedure types were registered under one kind.
        case duplicateKind(String)
        /// The job's stored input could not be decoded as its procedure's `Input`.
        case undecodableInput(kind: String, reason: String)
        /// The job's stored output could not be decoded as the `Output` asked for.
        case undecodableOutput(JobID, reason: String)
        /// A value could not be encoded as JSON.
        case unencodableValue(reason: String)
        /// The schema name is not a plain lower-case SQL identifier.
        case invalidSchemaName(String)
        /// An option is out of range; the text says which and why.
        case invalidOption(String)
        /// There is no job with this id (never enqueued, or pruned).
        case jobNotFound(JobID)
        /// A dependency named at enqueue does not exist.
        case unknownDependency(JobID)
        /// The job failed for good; its error history, oldest first.
        case jobFailed(JobID, errors: [String])
        /// The job was cancelled; why, oldest first.
        case jobCancelled(JobID, errors: [String])
        /// The job the input should come from finished without an output.
        case inputSourceUnavailable(JobID)
        /// The worker lost the job's lease (it expired, or another worker took the job over): the local procedure
        /// was cancelled and its outcome discarded.
        case leaseLost(JobID)
        /// The job was cancelled through ``DurableQueue/cancel(_:)-4xeub``.
        case cancelledByRequest(JobID)
        /// A dependency failed or was cancelled, so this job was cancelled.
        case dependencyFailed(JobID)
        /// The worker is shutting down; the job was released without spending an attempt.
        case workerShuttingDown
        /// The job ran longer than its timeout (``DurableJobOptions/timeout`` or its kind's
        /// ``DurableProcedure/durableTimeout``): its procedure was cancelled and the attempt failed.
        case timedOut(JobID, after: Duration)
        /// The queue does not migrate its schema (``DurableQueue/Migration/manual``) and the schema is behind this
        /// library: run ``DurableQueue/migrate()`` (with a role that may create tables) first.
        case schemaNotMigrated(schema: String, version: Int, required: Int)
        /// This build cannot read a claimed job (a newer version wrote something it does not know): the job was
        /// given back without spending an attempt, and this worker no longer claims it.
        case unreadableJob(JobID, reason: String)
        /// The job's outcome could not be stored (the database refused it; for example an output string holding
        /// U+0000, which `jsonb` rejects): the attempt was recorded failed with this error instead.
        case outcomeRejected(JobID, reason: String)

        /// A sentence saying what happened.
        public var description: String {
            switch self {
            case .unknownKind(let kind): "No procedure type is registered for the kind \"\(kind)\""
            case .duplicateKind(let kind): "The kind \"\(kind)\" is registered twice"
            case .undecodableInput(let kind, let reason): "The input of a \(kind) job cannot be decoded: \(reason)"
            case .undecodableOutput(let id, let reason): "The output of \(id) cannot be decoded: \(reason)"
            case .unencodableValue(let reason): "A value cannot be encoded as JSON: \(reason)"
            case .invalidSchemaName(let name):
                "\"\(name)\" is not a valid schema name (lower-case letters, digits and _, at most 40)"
            case .invalidOption(let text): "Invalid option: \(text)"
            case .jobNotFound(let id): "There is no \(id)"
            case .unknownDependency(let id): "The dependency \(id) does not exist"
            case .jobFailed(let id, let errors): "\(id) failed: \(errors.last ?? "no error recorded")"
            case .jobCancelled(let id, let errors): "\(id) was cancelled: \(errors.last ?? "no reason recorded")"
            case .inputSourceUnavailable(let id): "The job whose output is this job's input, \(id), has no output"
            case .leaseLost(let id): "The lease on \(id) was lost; another worker may run it"
            case .cancelledByRequest(let id): "\(id) was cancelled by request"
            case .dependencyFailed(let id): "A dependency of \(id) failed or was cancelled"
            case .workerShuttingDown: "The worker is shutting down"
            case .timedOut(let id, let after): "\(id) timed out after \(after.timeInterval) s"
            case .schemaNotMigrated(let schema, let version, let required):
                "The schema \(schema) is at version \(version), this library needs \(required): migrate it first "
                    + "(DurableQueue.migrate(), with a role that may create tables)"
            case .unreadableJob(let id, let reason):
                "\(id) cannot be read by this build (written by a newer version?): \(reason)"
            case .outcomeRejected(let id, let reason): "The outcome of \(id) could not be stored: \(reason)"
            }
        }

        /// Whether another attempt cannot succeed (an input that never decodes).
        var isPermanent: Bool {
            switch self {
            case .undecodableInput, .unknownKind, .inputSourceUnavailable: true
            default: false
            }
        }
    }
#endif
