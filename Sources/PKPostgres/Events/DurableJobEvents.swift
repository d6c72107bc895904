#if Postgres
    import Synchronization

    /// The events of a ``DurableQueue`` and its workers in this process, as ``DurableQueue/events(bufferingNewest:)``
    /// returns them: iterate it once, with `for await`.
    ///
    /// The stream keeps the newest events its consumer has not read, up to its limit, and drops older ones
    /// (``droppedCount``): publishing never waits for a slow consumer. It ends when the consumer's task is
    /// cancelled, and stops receiving as soon as it and its iterator are released (a `break` out of the loop), so a
    /// consumer that stops listening costs nothing afterwards. It also ends when its queue is released.
    public struct DurableJobEvents: AsyncSequence, Sendable {
        /// Each event.
        public typealias Element = DurableJobEvent
        /// The stream never throws.
        public typealias Failure = Never

        /// Unsubscribes when the last copy of the stream and its iterators is released.
        final class Subscription: Sendable {
            let dropped: DroppedEvents
            private let cancel: @Sendable () -> Void

            init(dropped: DroppedEvents, cancel: @escaping @Sendable () -> Void) {
                self.dropped = dropped
                self.cancel = cancel
            }

            deinit { cancel() }
        }

        let stream: AsyncStream<DurableJobEvent>
        let subscription: Subscription

        /// How many events this stream has dropped because its consumer had not read its newest
        /// `bufferingNewest` events yet.
        public var droppedCount: Int { subscription.dropped.count.load(ordering: .relaxed) }

        /// Makes the stream's iterator; iterate the stream once.
        public func makeAsyncIterator() -> Iterator {
            Iterator(base: stream.makeAsyncIterator(), subscription: subscription)
        }

        /// Reads the events in the order they were published. A worker publishes a job's events in order; events
        /// published by different threads (an enqueue's `inserted`, published once its transaction commits, and a
        /// worker's `started` for the same job) may arrive in either order.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<DurableJobEvent>.Iterator
            let subscription: Subscription

            /// The next event, or `nil` once the stream has ended (its task cancelled, its queue released).
            public mutating func next() async -> DurableJobEvent? {
                await base.next()
            }

            /// The next event, or `nil` once the stream has ended; stays on `actor`'s executor.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> DurableJobEvent? {
                await base.next(isolation: actor)
            }
        }
    }
#endif
