#if Postgres
    import Foundation
    import PKCore
    import Testing

    @testable import PKPostgres

    /// WorkerStateMachine, state × event, without threads or a database.
    @Suite struct WorkerStateMachineTests {

        static func job(_ id: Int64) -> DurableStore.ClaimedJob {
            DurableStore.ClaimedJob(
                id: JobID(rawValue: id), kind: "k", attempt: 1, maxAttempts: 3, token: id * 10, graph: nil,
                retry: .never, input: "{}", inputFrom: nil, timeout: nil)
        }

        /// The instant the tests count from.
        static let start = ContinuousClock.now
        static var later: ContinuousClock.Instant { start + .seconds(3_600) }
        static let timeout: Duration = .seconds(600)
        static let grace: Duration = .seconds(30)

        /// A machine that is running and holds the jobs `ids`, claimed at ``start`` with ``timeout``.
        static func running(holding ids: [Int64] = []) -> WorkerStateMachine {
            var machine = WorkerStateMachine()
            _ = machine.start()
            for id in ids {
                machine.claimed(job(id), procedure: Procedure(), timeout: timeout, leaseEnds: later, now: start)
            }
            return machine
        }

        static func isFinishStopping(_ action: WorkerStateMachine.Action) -> Bool {
            if case .finishStopping = action { return true }
            return false
        }

        // MARK: idle

        @Test func startingAnIdleMachineRunsItOnce() {
            var machine = WorkerStateMachine()
            #expect(machine.phase == .idle)
            let first = machine.start()
            #expect(first)
            #expect(machine.phase == .running)
            #expect(machine.claimLoopRunning)
            let second = machine.start()
            #expect(!second)
            #expect(machine.phase == .running)
        }

        @Test func shuttingDownAnIdleMachineStopsItAtOnce() {
            var machine = WorkerStateMachine()
            let (procedures, action) = machine.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace)
            #expect(procedures.isEmpty)
            #expect(Self.isFinishStopping(action))
            #expect(machine.phase == .stopped)
            let started = machine.start()
            #expect(!started)
            #expect(machine.phase == .stopped)
        }

        @Test func anIdleMachineClaimsNothing() {
            #expect(WorkerStateMachine().claimLimit(concurrency: 4) == 0)
        }

        // MARK: running

        @Test func theClaimLimitIsTheConcurrencyLessTheJobsHeldSoEveryClaimedJobStartsAtOnce() {
            var machine = Self.running(holding: [1, 2, 3])
            #expect(machine.claimLimit(concurrency: 4) == 1)
            #expect(machine.claimLimit(concurrency: 2) == 0)
            _ = machine.finished(20)
            #expect(machine.claimLimit(concurrency: 4) == 2)
            #expect(Self.running().claimLimit(concurrency: 4) == 4)
        }

        @Test func aJobWhoseOutcomeIsBeingRecordedStillTakesASlot() {
            var machine = Self.running(holding: [1])
            let recorded1 = machine.procedureFinished(10)
            #expect(recorded1)
            #expect(machine.stage(of: 10) == .recording)
            #expect(machine.claimLimit(concurrency: 1) == 0)
            _ = machine.finished(10)
            #expect(machine.claimLimit(concurrency: 1) == 1)
        }

        @Test func aMachineThatIsNotRunningClaimsNothing() {
            var draining = Self.running()
            _ = draining.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace)
            #expect(draining.claimLimit(concurrency: 4) == 0)
        }

        @Test func finishingAJobWhileRunningDoesNotStop() {
            var machine = Self.running(holding: [1])
            #expect(!Self.isFinishStopping(machine.finished(10)))
            #expect(machine.phase == .running)
            #expect(machine.jobs.isEmpty)
        }

        @Test func aClaimLoopThatEndsWhileRunningDrainsAndStopsWhenNoJobIsLeft() {
            var machine = Self.running(holding: [1])
            #expect(!Self.isFinishStopping(machine.claimLoopEnded()))
            #expect(machine.phase == .draining)
            #expect(Self.isFinishStopping(machine.finished(10)))
            #expect(machine.phase == .stopped)
        }

        // MARK: draining

        @Test func shuttingDownStopsClaimingAtOnce() {
            var machine = Self.running(holding: [1])
            let (procedures, action) = machine.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace)
            #expect(procedures.isEmpty)
            #expect(!Self.isFinishStopping(action))
            #expect(machine.phase == .draining)
            #expect(machine.claimLimit(concurrency: 4) == 0)
        }

        @Test func drainingStopsOnlyOnceTheClaimLoopEndedAndNoJobIsLeft() {
            var machine = Self.running(holding: [1, 2])
            _ = machine.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace)
            #expect(!Self.isFinishStopping(machine.finished(10)))
            #expect(!Self.isFinishStopping(machine.claimLoopEnded()))
            #expect(machine.phase == .draining)
            #expect(Self.isFinishStopping(machine.finished(20)))
            #expect(machine.phase == .stopped)
        }

        @Test func drainingWithoutJobsStopsWhenTheClaimLoopEnds() {
            var machine = Self.running()
            #expect(
                !Self.isFinishStopping(
                    machine.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace).action))
            #expect(Self.isFinishStopping(machine.claimLoopEnded()))
            #expect(machine.phase == .stopped)
        }

        @Test func theLastJobFinishingBeforeTheClaimLoopEndsDoesNotStop() {
            var machine = Self.running(holding: [1])
            _ = machine.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace)
            #expect(!Self.isFinishStopping(machine.finished(10)))
            #expect(machine.phase == .draining)
            #expect(Self.isFinishStopping(machine.claimLoopEnded()))
        }

        @Test func cancellingForShutdownReturnsTheProceduresNotAlreadyCancelled() {
            var machine = Self.running(holding: [1, 2, 3])
            let lost = machine.cancel(token: 20, cause: .leaseLost, now: Self.start, grace: Self.grace)
            #expect(lost != nil)
            _ = machine.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace)
            let (procedures, action) = machine.shutdown(cancelRunning: true, now: Self.start, grace: Self.grace)
            #expect(procedures.count == 2)
            #expect(!procedures.contains { $0 === lost })
            #expect(!Self.isFinishStopping(action))
            #expect(machine.cause(of: 10) == .shutdown)
            #expect(machine.cause(of: 20) == .leaseLost)
            #expect(machine.cause(of: 30) == .shutdown)
            // A second cancellation for shutdown finds nothing more to cancel.
            #expect(machine.shutdown(cancelRunning: true, now: Self.start, grace: Self.grace).procedures.isEmpty)
        }

        @Test func cancellingForShutdownKeepsTheMachineDrainingUntilTheCancelledJobsFinish() {
            var machine = Self.running(holding: [1])
            _ = machine.claimLoopEnded()
            let (procedures, action) = machine.shutdown(cancelRunning: true, now: Self.start, grace: Self.grace)
            #expect(procedures.count == 1)
            #expect(!Self.isFinishStopping(action))
            #expect(machine.phase == .draining)
            #expect(Self.isFinishStopping(machine.finished(10)))
            #expect(machine.phase == .stopped)
        }

        @Test func aClaimLoopThatEndsWhileRunningWithoutJobsStopsAtOnce() {
            var machine = Self.running()
            #expect(Self.isFinishStopping(machine.claimLoopEnded()))
            #expect(machine.phase == .stopped)
        }

        // MARK: stopped

        @Test func aStoppedMachineIgnoresFurtherShutdowns() {
            var machine = WorkerStateMachine()
            _ = machine.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace)
            #expect(
                !Self.isFinishStopping(
                    machine.shutdown(cancelRunning: false, now: Self.start, grace: Self.grace).action))
            #expect(
                !Self.isFinishStopping(machine.shutdown(cancelRunning: true, now: Self.start, grace: Self.grace).action)
            )
            #expect(machine.phase == .stopped)
            #expect(machine.claimLimit(concurrency: 4) == 0)
        }

        // MARK: jobs

        @Test(arguments: [WorkerStateMachine.CancelCause.leaseLost, .cancelRequested, .shutdown, .timedOut])
        func cancellingAJobReturnsItsProcedureOnceAndKeepsTheFirstCause(cause: WorkerStateMachine.CancelCause) {
            var machine = Self.running(holding: [1])
            let token: Int64 = 10
            #expect(machine.cause(of: token) == nil)
            #expect(machine.cancel(token: token, cause: cause, now: Self.start, grace: Self.grace) != nil)
            #expect(machine.cancel(token: token, cause: cause, now: Self.start, grace: Self.grace) == nil)
            let other: WorkerStateMachine.CancelCause = cause == .shutdown ? .leaseLost : .shutdown
            #expect(machine.cancel(token: token, cause: other, now: Self.start, grace: Self.grace) == nil)
            #expect(machine.cause(of: token) == cause)
        }

        @Test func aJobClaimedAgainWhileAGivenUpRunOfItStillRunsIsHeldTwiceAndCancelledByIdOnlyWhereLive() {
            var machine = Self.running(holding: [1])
            _ = machine.cancel(token: 10, cause: .leaseLost, now: Self.start, grace: Self.grace)
            // The reaper requeued it and this worker claimed it again, with a new token.
            var again = Self.job(1)
            again = DurableStore.ClaimedJob(
                id: again.id, kind: again.kind, attempt: 2, maxAttempts: 3, token: 11, graph: nil, retry: .never,
                input: "{}", inputFrom: nil, timeout: nil)
            machine.claimed(
                again, procedure: Procedure(), timeout: Self.timeout, leaseEnds: Self.later, now: Self.start)
            #expect(machine.jobs.count == 2)
            #expect(machine.jobIDs == [JobID(rawValue: 1)])
            #expect(machine.heldLeases.map(\.1) == [11])
            let cancelled = machine.cancel(
                JobID(rawValue: 1), cause: .cancelRequested, now: Self.start, grace: Self.grace)
            #expect(cancelled.count == 1)
            #expect(machine.cause(of: 10) == .leaseLost)
            #expect(machine.cause(of: 11) == .cancelRequested)
            _ = machine.finished(10)
            #expect(machine.cause(of: 11) == .cancelRequested)
        }

        @Test func cancellingAJobTheMachineDoesNotHoldOrWhoseProcedureFinishedReturnsNothing() {
            var machine = Self.running(holding: [1, 2])
            #expect(
                machine.cancel(token: 90, cause: .cancelRequested, now: Self.start, grace: Self.grace) == nil)
            _ = machine.finished(10)
            #expect(
                machine.cancel(token: 10, cause: .cancelRequested, now: Self.start, grace: Self.grace) == nil)
            let recorded2 = machine.procedureFinished(20)
            #expect(recorded2)
            #expect(
                machine.cancel(token: 20, cause: .cancelRequested, now: Self.start, grace: Self.grace) == nil)
        }

        @Test func leasesGivenUpAreNeitherRenewedNorReportedExpired() {
            var machine = Self.running(holding: [1, 2])
            _ = machine.cancel(token: 20, cause: .leaseLost, now: Self.start, grace: Self.grace)
            #expect(machine.heldLeases.map(\.0) == [JobID(rawValue: 1)])
            #expect(machine.heldLeases.map(\.1) == [10])
            #expect(machine.expiredLeases(at: Self.later + .seconds(1)) == [10])
        }

        @Test func aJobsLeaseExpiresByTheWorkersClockUnlessRenewed() {
            var machine = WorkerStateMachine()
            _ = machine.start()
            let start = Self.start
            machine.claimed(
                Self.job(1), procedure: Procedure(), timeout: Self.timeout, leaseEnds: start + .seconds(2), now: start)
            #expect(machine.expiredLeases(at: start + .seconds(1)).isEmpty)
            #expect(machine.expiredLeases(at: start + .seconds(3)) == [10])
            machine.leaseRenewed(10, until: start + .seconds(5))
            #expect(machine.expiredLeases(at: start + .seconds(3)).isEmpty)
            // A cancellation for another cause still renews the lease: the outcome is recorded.
            _ = machine.cancel(token: 10, cause: .cancelRequested, now: start, grace: Self.grace)
            #expect(machine.heldLeases.count == 1)
            #expect(machine.expiredLeases(at: start + .seconds(6)) == [10])
        }

        @Test func aJobWhoseOutcomeIsBeingRecordedIsRenewedButNeverReportedExpired() {
            var machine = Self.running(holding: [1])
            let recorded1 = machine.procedureFinished(10)
            #expect(recorded1)
            #expect(machine.heldLeases.map(\.0) == [JobID(rawValue: 1)])
            #expect(machine.expiredLeases(at: Self.later + .seconds(1)).isEmpty)
        }

        @Test func aJobGivenBackUnreadIsRecordedAtOnceAndHasNoDeadline() {
            var machine = Self.running()
            machine.claimed(Self.job(1), procedure: nil, timeout: Self.timeout, leaseEnds: Self.later, now: Self.start)
            #expect(machine.stage(of: 10) == .recording)
            #expect(machine.nextDeadline == nil)
            #expect(machine.heldLeases.count == 1)
            #expect(machine.cancel(token: 10, cause: .leaseLost, now: Self.start, grace: Self.grace) == nil)
        }

        // MARK: deadlines

        @Test func aJobsDeadlineIsItsTimeoutFromItsClaim() {
            let machine = Self.running(holding: [1])
            #expect(machine.nextDeadline == Self.start + Self.timeout)
        }

        @Test func nothingHappensBeforeADeadline() {
            var machine = Self.running(holding: [1])
            #expect(machine.deadlinesPassed(at: Self.start + Self.timeout - .seconds(1), grace: Self.grace).isEmpty)
            #expect(machine.cause(of: 10) == nil)
        }

        @Test func aJobPastItsTimeoutIsCancelledForItThenGivenUpOneGraceLater() {
            var machine = Self.running(holding: [1, 2])
            let id = JobID(rawValue: 1)
            let token: Int64 = 10
            machine.leaseRenewed(20, until: Self.later)
            _ = machine.procedureFinished(20)  // finished in time: no deadline
            let atTimeout = Self.start + Self.timeout
            let first = machine.deadlinesPassed(at: atTimeout, grace: Self.grace)
            #expect(first.count == 1)
            guard case .cancelForTimeout(let cancelled, _, let timeout) = first.first else {
                Issue.record("expected a cancellation for the timeout, got \(first)")
                return
            }
            #expect(cancelled.id == id)
            #expect(timeout == Self.timeout)
            #expect(machine.cause(of: token) == .timedOut)
            #expect(machine.nextDeadline == atTimeout + Self.grace)
            #expect(machine.deadlinesPassed(at: atTimeout + Self.grace - .seconds(1), grace: Self.grace).isEmpty)
            let second = machine.deadlinesPassed(at: atTimeout + Self.grace, grace: Self.grace)
            guard case .giveUp(let job, let cause, _) = second.first, second.count == 1 else {
                Issue.record("expected the job given up, got \(second)")
                return
            }
            #expect(job.id == id)
            #expect(cause == .timedOut)
            #expect(machine.stage(of: token) == .abandoned)
            #expect(machine.nextDeadline == nil)
            #expect(machine.stuckCount == 1)
            // Given up: neither renewed nor expired, and it keeps its slot until its procedure finishes.
            #expect(!machine.heldLeases.contains { $0.0 == id })
            #expect(machine.expiredLeases(at: Self.later + .seconds(1)).isEmpty)
            #expect(machine.claimLimit(concurrency: 2) == 0)
            let recordedAgain = machine.procedureFinished(token)
            #expect(!recordedAgain)
            _ = machine.finished(token)
            #expect(machine.stuckCount == 0)
        }

        @Test(arguments: [WorkerStateMachine.CancelCause.leaseLost, .cancelRequested, .shutdown])
        func aCancelledJobWhoseProcedureDoesNotStopIsGivenUpOneGraceLater(cause: WorkerStateMachine.CancelCause) {
            var machine = Self.running(holding: [1])
            let token: Int64 = 10
            let cancelledAt = Self.start + .seconds(10)
            #expect(machine.cancel(token: token, cause: cause, now: cancelledAt, grace: Self.grace) != nil)
            #expect(machine.nextDeadline == cancelledAt + Self.grace)
            let actions = machine.deadlinesPassed(at: cancelledAt + Self.grace, grace: Self.grace)
            guard case .giveUp(_, let givenUpFor, _) = actions.first, actions.count == 1 else {
                Issue.record("expected the job given up, got \(actions)")
                return
            }
            #expect(givenUpFor == cause)
            #expect(machine.stage(of: token) == .abandoned)
        }

        @Test func aCancellationNeverPostponesADeadline() {
            var machine = Self.running()
            machine.claimed(
                Self.job(1), procedure: Procedure(), timeout: .seconds(5), leaseEnds: Self.later, now: Self.start)
            _ = machine.cancel(token: 10, cause: .cancelRequested, now: Self.start, grace: Self.grace)
            #expect(machine.nextDeadline == Self.start + .seconds(5))
        }

        @Test func aShutdownThatCancelsGivesEveryRunningJobAGraceDeadline() {
            var machine = Self.running(holding: [1, 2])
            let (procedures, _) = machine.shutdown(cancelRunning: true, now: Self.start, grace: Self.grace)
            #expect(procedures.count == 2)
            #expect(machine.nextDeadline == Self.start + Self.grace)
        }

        @Test func renewingAFinishedJobsLeaseChangesNothing() {
            var machine = Self.running(holding: [1])
            _ = machine.finished(10)
            machine.leaseRenewed(10, until: Self.later)
            #expect(machine.jobs.isEmpty)
        }
    }
#endif
