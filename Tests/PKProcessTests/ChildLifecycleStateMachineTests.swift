import Testing

@testable import PKProcess

/// Every event in every state of a child's lifecycle (the machine has no threads, clocks or callbacks).
@Suite struct ChildLifecycleStateMachineTests {
    typealias Machine = ChildLifecycleStateMachine

    private func running(suspensions: Int = 0, terminating: Bool = false) -> Machine {
        var machine = Machine()
        let result1 = machine.willLaunch()
        #expect(result1)
        _ = machine.didLaunch(pid: 42)
        for _ in 0..<suspensions { _ = machine.suspend() }
        if terminating { _ = machine.cancel() }
        return machine
    }

    @Test func launchGoesFromNotLaunchedThroughLaunchingToRunning() {
        var machine = Machine()
        #expect(machine.state == .notLaunched)
        let result2 = machine.willLaunch()
        #expect(result2)
        #expect(machine.state == .launching(cancelled: false))
        let result3 = machine.didLaunch(pid: 42)
        #expect(result3 == Machine.Action.none)
        #expect(machine.state == .running(pid: 42, suspensions: 0, terminating: false))
        #expect(machine.signallablePID == 42)
        let wasCancelled = machine.willReap()
        #expect(!wasCancelled)
        #expect(machine.state == .reaped)
        #expect(machine.signallablePID == nil)
    }

    @Test func cancelBeforeLaunchPreventsTheLaunch() {
        var machine = Machine()
        let result4 = machine.cancel()
        #expect(result4 == Machine.Action.none)
        #expect(machine.isTerminating)
        let result5 = machine.willLaunch()
        #expect(!result5)
        #expect(machine.state == .reaped)
        let result6 = machine.cancel()
        #expect(result6 == Machine.Action.none)
    }

    @Test func cancelWhileLaunchingTerminatesOnLaunch() {
        var machine = Machine()
        let result7 = machine.willLaunch()
        #expect(result7)
        let result8 = machine.cancel()
        #expect(result8 == .wake, "the supervisor may be waiting for a FIFO's other end")
        #expect(machine.isTerminating)
        let again = machine.cancel()
        #expect(again == Machine.Action.none, "woken once")
        let result9 = machine.didLaunch(pid: 7)
        #expect(result9 == .terminate(pid: 7))
        #expect(machine.state == .running(pid: 7, suspensions: 0, terminating: true))
    }

    @Test func launchFailureEndsTheLifecycle() {
        var machine = Machine()
        let result10 = machine.willLaunch()
        #expect(result10)
        let wasCancelled = machine.launchFailed()
        #expect(!wasCancelled)
        #expect(machine.state == .reaped)
        let result11 = machine.cancel()
        #expect(result11 == Machine.Action.none)
        let result12 = machine.suspend()
        #expect(result12 == (false, Machine.Action.none))
    }

    @Test func aLaunchGivenUpAfterACancelSaysSo() {
        var machine = Machine()
        _ = machine.willLaunch()
        _ = machine.cancel()
        let wasCancelled = machine.launchFailed()
        #expect(wasCancelled)
        #expect(machine.state == .reaped)
    }

    @Test func cancelWhileRunningTerminatesOnce() {
        var machine = running()
        let result13 = machine.cancel()
        #expect(result13 == .terminate(pid: 42))
        let result14 = machine.cancel()
        #expect(result14 == Machine.Action.none)
        #expect(machine.isTerminating)
        #expect(machine.signallablePID == 42)
    }

    /// A suspended child is terminated all the same: the owner follows every `terminate` with `SIGCONT`
    /// (CancellationTests.aSuspendedProcessCanBeCancelled), and the suspensions no longer count.
    @Test func cancelWhileSuspendedTerminates() {
        var machine = running(suspensions: 2)
        let result15 = machine.cancel()
        #expect(result15 == .terminate(pid: 42))
        let resumed = machine.resume()
        #expect(resumed == (false, Machine.Action.none))
    }

    @Test func suspensionsCountAndOnlyTheFirstAndLastSignal() {
        var machine = running()
        let result16 = machine.resume()
        #expect(result16 == (false, Machine.Action.none))
        let result17 = machine.suspend()
        #expect(result17 == (true, .stop(pid: 42)))
        let result18 = machine.suspend()
        #expect(result18 == (true, Machine.Action.none))
        let result19 = machine.resume()
        #expect(result19 == (true, Machine.Action.none))
        let result20 = machine.resume()
        #expect(result20 == (true, .continue(pid: 42)))
        let result21 = machine.resume()
        #expect(result21 == (false, Machine.Action.none))
    }

    @Test func aTerminatingChildIsNeitherSuspendedNorResumed() {
        var machine = running(suspensions: 1, terminating: true)
        let result22 = machine.suspend()
        #expect(result22 == (false, Machine.Action.none))
        let result23 = machine.resume()
        #expect(result23 == (false, Machine.Action.none))
    }

    @Test func suspendAndResumeOutsideRunningAreRefused() {
        var notLaunched = Machine()
        let result24 = notLaunched.suspend()
        #expect(result24 == (false, Machine.Action.none))
        let result25 = notLaunched.resume()
        #expect(result25 == (false, Machine.Action.none))
        var launching = Machine()
        _ = launching.willLaunch()
        let result26 = launching.suspend()
        #expect(result26 == (false, Machine.Action.none))
        let result27 = launching.resume()
        #expect(result27 == (false, Machine.Action.none))
        var reaped = running()
        _ = reaped.willReap()
        let result28 = reaped.suspend()
        #expect(result28 == (false, Machine.Action.none))
        let result29 = reaped.resume()
        #expect(result29 == (false, Machine.Action.none))
        let result30 = reaped.cancel()
        #expect(result30 == Machine.Action.none)
        #expect(!reaped.isTerminating)
    }

    @Test func reapedStateForgetsThePid() {
        var machine = running(terminating: true)
        let wasCancelled = machine.willReap()
        #expect(wasCancelled, "a cancelled child's group was sent SIGTERM")
        #expect(machine.signallablePID == nil)
        #expect(machine.state == .reaped)
    }
}
