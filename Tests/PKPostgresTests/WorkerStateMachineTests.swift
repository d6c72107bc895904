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
                retry: .never, input: "{}", inputFrom: nil)
        }

        static var later: ContinuousClock.Instant { .now + .seconds(3_600) }

        /// A machine that is running and holds the jobs `ids`.
        static func running(holding ids: [Int64] = []) -> WorkerStateMachine {
            var machine = WorkerStateMachine()
            _ = machine.start()
            for id in ids { machine.claimed(job(id), procedure: Procedure(), leaseEnds: later) }
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
            let (procedures, action) = machine.shutdown(cancelRunning: false)
            #expect(procedures.isEmpty)
            #expect(Self.isFinishStopping(action))
            #expect(machine.phase == .stopped)
            let started = machine.start()
            #expect(!started)
            #expect(machine.phase == .stopped)
        }

        @Test func anIdleMachineHasNoFreeSlots() {
            #expect(WorkerStateMachine().freeSlots(concurrency: 4) == 0)
        }

        // MARK: running

        @Test func freeSlotsAreTheConcurrencyLessTheJobsHeld() {
            var machine = Self.running(holding: [1, 2, 3])
            #expect(machine.freeSlots(concurrency: 4) == 1)
            #expect(machine.freeSlots(concurrency: 2) == 0)
            _ = machine.finished(JobID(rawValue: 2))
            #expect(machine.freeSlots(concurrency: 4) == 2)
        }

        @Test func withoutABacklogTheClaimLimitIsTheFreeSlots() {
            let machine = Self.running(holding: [1])
            #expect(machine.claimLimit(concurrency: 4, backlog: false) == 3)
            #expect(Self.running(holding: [1, 2, 3, 4, 5]).claimLimit(concurrency: 4, backlog: false) == 0)
        }

        @Test func inABacklogTheWorkerPrefetchesUpToTwiceItsConcurrency() {
            #expect(Self.running().claimLimit(concurrency: 4, backlog: true) == 8)
            #expect(Self.running(holding: [1, 2, 3]).claimLimit(concurrency: 4, backlog: true) == 5)
            #expect(Self.running(holding: [1, 2, 3, 4]).claimLimit(concurrency: 4, backlog: true) == 4)
            // Above its concurrency it waits until it is back down to it, so that claims come in batches.
            #expect(Self.running(holding: [1, 2, 3, 4, 5]).claimLimit(concurrency: 4, backlog: true) == 0)
        }

        @Test func aMachineThatIsNotRunningClaimsNothing() {
            #expect(WorkerStateMachine().claimLimit(concurrency: 4, backlog: true) == 0)
            var draining = Self.running()
            _ = draining.shutdown(cancelRunning: false)
            #expect(draining.claimLimit(concurrency: 4, backlog: false) == 0)
            #expect(draining.claimLimit(concurrency: 4, backlog: true) == 0)
        }

        @Test func finishingAJobWhileRunningDoesNotStop() {
            var machine = Self.running(holding: [1])
            #expect(!Self.isFinishStopping(machine.finished(JobID(rawValue: 1))))
            #expect(machine.phase == .running)
            #expect(machine.jobs.isEmpty)
        }

        @Test func aClaimLoopThatEndsWhileRunningDrainsAndStopsWhenNoJobIsLeft() {
            var machine = Self.running(holding: [1])
            #expect(!Self.isFinishStopping(machine.claimLoopEnded()))
            #expect(machine.phase == .draining)
            #expect(Self.isFinishStopping(machine.finished(JobID(rawValue: 1))))
            #expect(machine.phase == .stopped)
        }

        // MARK: draining

        @Test func shuttingDownStopsClaimingAtOnce() {
            var machine = Self.running(holding: [1])
            let (procedures, action) = machine.shutdown(cancelRunning: false)
            #expect(procedures.isEmpty)
            #expect(!Self.isFinishStopping(action))
            #expect(machine.phase == .draining)
            #expect(machine.freeSlots(concurrency: 4) == 0)
        }

        @Test func drainingStopsOnlyOnceTheClaimLoopEndedAndNoJobIsLeft() {
            var machine = Self.running(holding: [1, 2])
            _ = machine.shutdown(cancelRunning: false)
            #expect(!Self.isFinishStopping(machine.finished(JobID(rawValue: 1))))
            #expect(!Self.isFinishStopping(machine.claimLoopEnded()))
            #expect(machine.phase == .draining)
            #expect(Self.isFinishStopping(machine.finished(JobID(rawValue: 2))))
            #expect(machine.phase == .stopped)
        }

        @Test func drainingWithoutJobsStopsWhenTheClaimLoopEnds() {
            var machine = Self.running()
            #expect(!Self.isFinishStopping(machine.shutdown(cancelRunning: false).action))
            #expect(Self.isFinishStopping(machine.claimLoopEnded()))
            #expect(machine.phase == .stopped)
        }

        @Test func theLastJobFinishingBeforeTheClaimLoopEndsDoesNotStop() {
            var machine = Self.running(holding: [1])
            _ = machine.shutdown(cancelRunning: false)
            #expect(!Self.isFinishStopping(machine.finished(JobID(rawValue: 1))))
            #expect(machine.phase == .draining)
            #expect(Self.isFinishStopping(machine.claimLoopEnded()))
        }

        @Test func cancellingForShutdownReturnsTheProceduresNotAlreadyCancelled() {
            var machine = Self.running(holding: [1, 2, 3])
            let lost = machine.cancel(JobID(rawValue: 2), cause: .leaseLost)
            #expect(lost != nil)
            _ = machine.shutdown(cancelRunning: false)
            let (procedures, action) = machine.shutdown(cancelRunning: true)
            #expect(procedures.count == 2)
            #expect(!procedures.contains { $0 === lost })
            #expect(!Self.isFinishStopping(action))
            #expect(machine.cause(of: JobID(rawValue: 1)) == .shutdown)
            #expect(machine.cause(of: JobID(rawValue: 2)) == .leaseLost)
            #expect(machine.cause(of: JobID(rawValue: 3)) == .shutdown)
            // A second cancellation for shutdown finds nothing more to cancel.
            #expect(machine.shutdown(cancelRunning: true).procedures.isEmpty)
        }

        @Test func cancellingForShutdownKeepsTheMachineDrainingUntilTheCancelledJobsFinish() {
            var machine = Self.running(holding: [1])
            _ = machine.claimLoopEnded()
            let (procedures, action) = machine.shutdown(cancelRunning: true)
            #expect(procedures.count == 1)
            #expect(!Self.isFinishStopping(action))
            #expect(machine.phase == .draining)
            #expect(Self.isFinishStopping(machine.finished(JobID(rawValue: 1))))
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
            _ = machine.shutdown(cancelRunning: false)
            #expect(!Self.isFinishStopping(machine.shutdown(cancelRunning: false).action))
            #expect(!Self.isFinishStopping(machine.shutdown(cancelRunning: true).action))
            #expect(machine.phase == .stopped)
            #expect(machine.freeSlots(concurrency: 4) == 0)
        }

        // MARK: jobs

        @Test(arguments: [WorkerStateMachine.CancelCause.leaseLost, .cancelRequested, .shutdown])
        func cancellingAJobReturnsItsProcedureOnceAndKeepsTheFirstCause(cause: WorkerStateMachine.CancelCause) {
            var machine = Self.running(holding: [1])
            #expect(machine.cause(of: JobID(rawValue: 1)) == nil)
            #expect(machine.cancel(JobID(rawValue: 1), cause: cause) != nil)
            #expect(machine.cancel(JobID(rawValue: 1), cause: cause) == nil)
            #expect(machine.cancel(JobID(rawValue: 1), cause: cause == .shutdown ? .leaseLost : .shutdown) == nil)
            #expect(machine.cause(of: JobID(rawValue: 1)) == cause)
        }

        @Test func cancellingAJobTheMachineDoesNotHoldReturnsNothing() {
            var machine = Self.running(holding: [1])
            #expect(machine.cancel(JobID(rawValue: 9), cause: .cancelRequested) == nil)
            _ = machine.finished(JobID(rawValue: 1))
            #expect(machine.cancel(JobID(rawValue: 1), cause: .cancelRequested) == nil)
        }

        @Test func leasesGivenUpAreNeitherRenewedNorReportedExpired() {
            var machine = Self.running(holding: [1, 2])
            _ = machine.cancel(JobID(rawValue: 2), cause: .leaseLost)
            #expect(machine.heldLeases.map(\.0) == [JobID(rawValue: 1)])
            #expect(machine.heldLeases.map(\.1) == [10])
            #expect(machine.expiredLeases(at: Self.later + .seconds(1)) == [JobID(rawValue: 1)])
        }

        @Test func aJobsLeaseExpiresByTheWorkersClockUnlessRenewed() {
            var machine = WorkerStateMachine()
            _ = machine.start()
            let start = ContinuousClock.now
            machine.claimed(Self.job(1), procedure: Procedure(), leaseEnds: start + .seconds(2))
            #expect(machine.expiredLeases(at: start + .seconds(1)).isEmpty)
            #expect(machine.expiredLeases(at: start + .seconds(3)) == [JobID(rawValue: 1)])
            machine.leaseRenewed(JobID(rawValue: 1), until: start + .seconds(5))
            #expect(machine.expiredLeases(at: start + .seconds(3)).isEmpty)
            // A cancellation for another cause still renews the lease: the outcome is recorded.
            _ = machine.cancel(JobID(rawValue: 1), cause: .cancelRequested)
            #expect(machine.heldLeases.count == 1)
            #expect(machine.expiredLeases(at: start + .seconds(6)) == [JobID(rawValue: 1)])
        }

        @Test func renewingAFinishedJobsLeaseChangesNothing() {
            var machine = Self.running(holding: [1])
            _ = machine.finished(JobID(rawValue: 1))
            machine.leaseRenewed(JobID(rawValue: 1), until: Self.later)
            #expect(machine.jobs.isEmpty)
        }
    }
#endif
