extension ProcedureQueue {
    /// The queue running the calling code: ProcedureKit code that asked `OperationQueue.current` asks this.
    ///
    /// - While a procedure's `execute()`, observers or hooks run: the queue that procedure is on (for a group's
    ///   child, the group's private queue). Inside an observer synchronized with another procedure, that
    ///   procedure's queue.
    /// - While a plain `Operation` that a `ProcedureQueue` started runs its `main()`: that queue.
    /// - `nil` elsewhere: on threads you dispatched to yourself, in Swift tasks (`AsyncProcedure` bodies included),
    ///   before a procedure is enqueued and once it has finished (its DidFinish observers).
    ///
    /// Operations added to a group's private queue become children of the group, as with
    /// ``GroupProcedure/addChild(_:before:)``: the group's add steps run and the group waits for them. So, as with
    /// `addChild`, a procedure already on another queue makes the group finish with
    /// ``ProcedureKitError/Context/childNotAdded(_:)``, and once the group is finishing an add is refused with a
    /// warning (do not then wait for the operation). From a
    /// procedure, prefer `produce(operation:before:)`, which works from any thread. Do not wait for the queue's
    /// operations from inside one of them (`waitUntilAllOperationsAreFinished()`): that deadlocks, as it does with
    /// Foundation's queue.
    public static var current: ProcedureQueue? {
        if let procedure = DrainingProcedures.innermostProcedure {
            // Called from user code, which holds none of the framework's locks (LOCKING.md, rule 1).
            return procedure.storage.withLock { $0.queue }
        }
        return runningPlainOperationQueue.current?.pointee.takeUnretainedValue()
    }

    /// The queue of the plain operation whose `start()` runs on this thread (see ``runningPlainOperation(on:_:)``).
    private static let runningPlainOperationQueue = ThreadLocalPointer<Unmanaged<ProcedureQueue>>()

    /// Runs `body` (a plain operation's `start()`) with `queue` as ``current``; `queue` must stay alive meanwhile.
    static func runningPlainOperation(on queue: ProcedureQueue, _ body: () -> Void) {
        let outer = runningPlainOperationQueue.current
        var running = Unmanaged.passUnretained(queue)
        withUnsafeMutablePointer(to: &running) { runningPlainOperationQueue.withCurrent($0, restoring: outer, body) }
    }
}
