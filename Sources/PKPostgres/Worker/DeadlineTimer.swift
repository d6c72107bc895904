#if Postgres
    import Dispatch

    /// One timer for all of a worker's job deadlines, armed for the earliest: when it fires, the handler deals
    /// with what is due and returns the next deadline, if any, and the timer arms itself for it. ``schedule(_:)``
    /// arms it sooner when a new deadline comes before the armed one.
    ///
    /// `@unchecked Sendable`: `source` and `armed` are used only on `queue`, a serial dispatch queue, which is
    /// their lock.
    final class DeadlineTimer: @unchecked Sendable {
        private let queue = DispatchQueue(label: "PKPostgres.DurableWorker.deadlines")
        private let source: any DispatchSourceTimer
        private var armed: ContinuousClock.Instant?

        /// Creates a stopped timer whose `handler`, called on the timer's own queue, handles the deadlines passed
        /// and returns the next one.
        init(handler: @escaping @Sendable () -> ContinuousClock.Instant?) {
            source = DispatchSource.makeTimerSource(queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                armed = nil
                if let next = handler() { arm(next) }
            }
            source.resume()
        }

        deinit {
            source.cancel()
        }

        /// Makes sure the timer fires at `instant` or before.
        func schedule(_ instant: ContinuousClock.Instant) {
            queue.async { [self] in
                if let armed, armed <= instant { return }
                arm(instant)
            }
        }

        /// Stops the timer for good.
        func stop() {
            queue.async { [self] in source.cancel() }
        }

        private func arm(_ instant: ContinuousClock.Instant) {
            armed = instant
            let delay = max(0, ContinuousClock.now.duration(to: instant).timeInterval)
            source.schedule(deadline: .now() + min(delay, 86_400 * 366), leeway: .milliseconds(5))
        }
    }
#endif
