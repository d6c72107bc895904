#if Postgres
    import Foundation
    import PKCore
    import Synchronization

    /// Hands the events published in this process to every subscriber's stream: one hub per ``DurableQueue``, fed by
    /// the queue's enqueues and by its workers.
    ///
    /// The lock (`subscribers`, a PKMutex) guards only the table of subscribers: an event is yielded to the streams,
    /// and a stream finished, outside it, so a stream's termination handler (which unsubscribes) never runs under it.
    /// Publishing never blocks: each stream buffers its newest events up to its limit and drops older ones (counted
    /// in ``DurableJobEvents/droppedCount``).
    final class DurableEventHub: Sendable {
        struct Subscriber: Sendable {
            let continuation: AsyncStream<DurableJobEvent>.Continuation
            let dropped: DroppedEvents
        }

        private struct Subscribers {
            var next = 0
            var table: [Int: Subscriber] = [:]
        }

        private let subscribers = PKMutex(Subscribers())

        init() {}

        deinit {
            // The queue is gone: its streams end.
            for subscriber in subscribers.withLock({ $0.table.values }) { subscriber.continuation.finish() }
        }

        /// Whether any stream listens now: when none does, nothing is built or published.
        var hasSubscribers: Bool { subscribers.withLock { !$0.table.isEmpty } }

        /// How many streams listen now.
        var subscriberCount: Int { subscribers.withLock { $0.table.count } }

        /// A new stream of the events published from now on, keeping at most `limit` of them unread.
        func subscribe(bufferingNewest limit: Int) -> DurableJobEvents {
            let (stream, continuation) = AsyncStream.makeStream(
                of: DurableJobEvent.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
            let dropped = DroppedEvents()
            let id = subscribers.withLock { subscribers in
                defer { subscribers.next += 1 }
                subscribers.table[subscribers.next] = Subscriber(continuation: continuation, dropped: dropped)
                return subscribers.next
            }
            // Weakly: the hub holds the continuation, whose handler would otherwise hold the hub.
            continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
            return DurableJobEvents(
                stream: stream,
                subscription: DurableJobEvents.Subscription(dropped: dropped) { [weak self] in
                    self?.unsubscribe(id)
                })
        }

        /// Forgets the subscriber `id` and finishes its stream; does nothing when it is gone already.
        func unsubscribe(_ id: Int) {
            let removed = subscribers.withLock { $0.table.removeValue(forKey: id) }
            removed?.continuation.finish()
        }

        /// Yields `events`, stamped with the time now, to every stream, in order; never blocks.
        func publish(_ events: [DurableJobEvent]) {
            guard !events.isEmpty else { return }
            let targets = subscribers.withLock { Array($0.table) }
            guard !targets.isEmpty else { return }
            let now = Date()
            for (id, subscriber) in targets {
                for var event in events {
                    event.at = now
                    switch subscriber.continuation.yield(event) {
                    case .enqueued:
                        break
                    case .dropped:
                        subscriber.dropped.count.add(1, ordering: .relaxed)
                    case .terminated:
                        unsubscribe(id)
                    @unknown default:
                        break
                    }
                }
            }
        }
    }

    /// How many events one stream lost because its buffer was full.
    final class DroppedEvents: Sendable {
        let count = Atomic<Int>(0)
    }
#endif
