import Testing

@testable import PKObservers

/// The lifecycle of one shutdown handler and its scope, as a value: a waiting scope is resumed by a number.
struct ShutdownHandlerScopeTests {

    private typealias Machine = ShutdownHandlerScope.StateMachine<Int>

    @Test func aHandlerCalledWithinItsScopeRunsAndTheScopeEndsWithoutWaiting() {
        var machine = Machine()
        let runs = machine.callBegins()
        let resumed = machine.callReturned()
        let ended = machine.scopeEndsUnlessRunning()
        #expect(runs)
        #expect(resumed == nil)
        #expect(ended)
    }

    @Test func aHandlerWhoseScopeHasEndedIsNotCalled() {
        var machine = Machine()
        let ended = machine.scopeEndsUnlessRunning()
        let runs = machine.callBegins()
        #expect(ended)
        #expect(!runs)
    }

    @Test func aScopeEndingWithAWayToResumeItBeforeAnyCallDoesNotWait() {
        var machine = Machine()
        let waits = machine.scopeEnds(resume: 1)
        let runs = machine.callBegins()
        #expect(!waits)
        #expect(!runs)
    }

    @Test func aScopeEndingWhileItsHandlerRunsWaitsAndIsResumedWhenItReturns() {
        var machine = Machine()
        let runs = machine.callBegins()
        let endedAtOnce = machine.scopeEndsUnlessRunning()
        let waits = machine.scopeEnds(resume: 7)
        let resumed = machine.callReturned()
        #expect(runs)
        #expect(!endedAtOnce)
        #expect(waits)
        #expect(resumed == 7)
    }

    @Test func aHandlerReturningBeforeTheScopeCanWaitLeavesNothingToWaitFor() {
        var machine = Machine()
        _ = machine.callBegins()
        let endedAtOnce = machine.scopeEndsUnlessRunning()
        let resumed = machine.callReturned()
        let waits = machine.scopeEnds(resume: 7)
        #expect(!endedAtOnce)
        #expect(resumed == nil)
        #expect(!waits)
    }
}
