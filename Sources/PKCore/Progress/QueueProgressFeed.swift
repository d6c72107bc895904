/// Feeds a queue's progress roll-up: a queue observer that links each procedure added to the queue to the queue's
/// ``ProgressNode`` (a procedure added to a watched queue gets a node of its own; a queue nobody watches has no
/// feed and pays nothing).
///
/// The queue keeps its feed (``ProcedureQueue`` `progressFeed`) and holds it weakly as an observer; the feed holds
/// the node, and neither holds the queue.
final class QueueProgressFeed: ProcedureQueueObserver, EventSelectingQueueObserver {
    let node = ProgressNode(mode: .queue)

    package var observedQueueEvents: QueueEventKinds { .didAddProcedure }

    func procedureQueue(_ queue: ProcedureQueue, didAddProcedure procedure: Procedure, context: (any Sendable)?) {
        node.adopt(procedure.progressNode())
    }
}

extension ProcedureQueue {
    /// The queue's progress node, made (and its feed attached) on first use, then linked to the procedures on the
    /// queue now; those added later are linked as they are added.
    func progressNode() -> ProgressNode {
        let (feed, made) = progressFeed.withLock { slot -> (QueueProgressFeed, Bool) in
            if let feed = slot { return (feed, false) }
            let feed = QueueProgressFeed()
            slot = feed
            return (feed, true)
        }
        if made {
            // Observe first, then link what is there: a procedure added meanwhile is linked once either way.
            addObserver(feed)
            for case let procedure as Procedure in operations {
                feed.node.adopt(procedure.progressNode())
            }
        }
        return feed.node
    }
}
