// A procedure's mutually exclusive categories: asked for once its queue has given it a slot, just before it
// starts; held until it finishes. See `ProcedureReadinessMachine` (readyNeedingLocks, awaitingLocks, holdingLocks)
// for the states and `ExclusivityManager` for the locks.

extension Procedure {

    /// Registers `request` with the manager. Granted at once, the procedure starts here; otherwise it keeps its
    /// slot and waits, and the grant hands it back to a worker (``exclusivityGranted(_:)``). A request that would
    /// wait for a category one of its producers holds is refused: the procedure is cancelled instead.
    final func requestLocks(_ request: ExclusivityRequest) {
        #if DEBUG
            ExclusivityTestHooks.beforeRegistering(self)
        #endif
        let outcome = ExclusivityManager.shared.request(
            request.categories, ticket: request.ticket, procedure: ObjectIdentifier(self),
            ancestors: request.ancestors
        ) { [self] in
            exclusivityGranted(request.ticket)
        }
        switch outcome {
        case .granted:
            // A cancel may have withdrawn the request while it was being registered (it then handed the
            // procedure back to a worker itself): the grant goes back.
            if storage.withLock({ $0.readiness.locksGranted(request.ticket) }) {
                start()
            } else {
                ExclusivityManager.shared.release(request.ticket)
            }
        case .waiting:
            // Registration and cancellation are one decision: if a cancel withdrew the request before it was
            // registered, its withdrawal found nothing to release, so the registration is released here.
            if !storage.withLock({ $0.readiness.holdsLockRequest(request.ticket) }) {
                ExclusivityManager.shared.release(request.ticket)
            }
        case .deadlock(let blocked):
            storage.withLock { $0.readiness.lockRequestAbandoned(request.ticket) }
            let error = ProcedureKitError(context: .mutualExclusionDeadlock(categories: blocked))
            log.warning("\(error)")
            cancel(withErrors: [error], becomeReady: false)
            start()
        }
    }

    /// The manager granted `ticket`, on the releasing thread: the procedure goes back to a worker of its queue to
    /// start (it still holds its slot). A grant for a request withdrawn meanwhile is given back.
    private func exclusivityGranted(_ ticket: UInt64) {
        let queue = storage.withLock { state -> ProcedureQueue? in
            state.readiness.locksGranted(ticket) ? state.queue : nil
        }
        guard let queue else {
            ExclusivityManager.shared.release(ticket)
            return
        }
        queue.startAfterLocks(self)
    }

    /// Called by a suspended queue for a procedure it had handed a slot to but not started: a granted category
    /// goes back (it is asked for again when the procedure next starts), so nobody waits behind a procedure that
    /// cannot start.
    final func giveBackLocks() {
        let ticket = storage.withLock { state -> UInt64? in
            state.machine.state == .pending ? state.readiness.yieldLocksForSuspension() : nil
        }
        if let ticket { ExclusivityManager.shared.release(ticket) }
    }
}

#if DEBUG
    /// A test hook (debug builds only): runs between a procedure preparing its category request and registering
    /// it, the window in which a cancel used to be lost.
    enum ExclusivityTestHooks {
        private static let hook = PKMutex<(@Sendable (Procedure) -> Void)?>(nil)

        static func beforeRegistering(_ procedure: Procedure) {
            hook.withLock { $0 }?(procedure)
        }

        /// Runs `body` with `hook` installed.
        static func with<R>(_ installed: @escaping @Sendable (Procedure) -> Void, _ body: () throws -> R) rethrows -> R
        {
            hook.withLock { $0 = installed }
            defer { hook.withLock { $0 = nil } }
            return try body()
        }
    }
#endif
