#if Postgres
    import PKCore

    /// What a running job records about itself besides its outcome: the metadata it adds
    /// (``DurableJobInfo/recordMetadata(_:)``), held until the worker writes it, and the progress of its procedure
    /// the worker last wrote. The worker writes changes about once a second (``DurableWorker``'s progress flush),
    /// fenced by the lease, and what is still held with the outcome.
    ///
    /// Thread-safe: its state is behind one `PKMutex`, taken for a few assignments and never while calling out.
    final class DurableJobJournal: Sendable {
        private struct State {
            /// Metadata recorded and not yet written.
            var pending: [String: String] = [:]
            /// Bytes of metadata recorded by this attempt (written or not), against ``maximumSize``.
            var recordedSize = 0
            /// The progress last written; at first the progress of a procedure that reported nothing.
            var written = Progress(fraction: 0, message: nil)
        }

        /// A procedure's progress as the table keeps it.
        struct Progress: Equatable {
            var fraction: Double
            var message: String?
        }

        /// The most bytes of metadata (keys and values) one attempt may record.
        static let maximumSize = 65_536

        private let state = PKMutex(State())

        /// Adds `entries` to what is to be written (a later value for a key replaces an earlier one).
        func record(_ entries: [String: String]) throws {
            try DurableJobOptions.validateMetadata(entries)
            let size = entries.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
            try state.withLock { state in
                guard state.recordedSize + size <= Self.maximumSize else {
                    throw DurableError.invalidOption(
                        "a job may record at most \(Self.maximumSize) bytes of metadata an attempt")
                }
                state.recordedSize += size
                state.pending.merge(entries) { _, newer in newer }
            }
        }

        /// The metadata to write now, taken out of the journal; `nil` when there is none. Give it back with
        /// ``restore(_:)`` when the write fails.
        func takeMetadata() -> [String: String]? {
            state.withLock { state in
                guard !state.pending.isEmpty else { return nil }
                defer { state.pending = [:] }
                return state.pending
            }
        }

        /// Puts back metadata a write did not store; values recorded since win.
        func restore(_ entries: [String: String]) {
            state.withLock { state in state.pending = entries.merging(state.pending) { _, newer in newer } }
        }

        /// `progress` when it differs from what was last written, now marked written; `nil` when it does not.
        /// Forget the mark with ``forgetWrittenProgress()`` when the write fails.
        func takeProgress(_ progress: ProcedureProgress) -> Progress? {
            let now = Progress(fraction: progress.fractionCompleted, message: progress.message)
            return state.withLock { state in
                guard state.written != now else { return nil }
                state.written = now
                return now
            }
        }

        /// Makes the next ``takeProgress(_:)`` report the progress again.
        func forgetWrittenProgress() {
            state.withLock { $0.written = Progress(fraction: -1, message: nil) }
        }
    }
#endif
