import Foundation
import Testing

@testable import PKNetwork

/// A task that only counts calls: the state machine never runs it.
private final class CountingTask: NetworkDataTask {
    func resume() {}
    func cancel() {}
}

struct NetworkTaskStateMachineTests {

    @Test func taskMadeWhileIdleIsResumed() {
        var machine = NetworkTaskStateMachine()
        guard case .resume = machine.taskMade(CountingTask(), mayCancel: true) else {
            Issue.record("expected resume")
            return
        }
        guard case .running = machine.state else {
            Issue.record("expected running")
            return
        }
    }

    @Test func taskMadeAfterACancelIsResumedAndCancelled() {
        var machine = NetworkTaskStateMachine()
        guard case .none = machine.cancel() else {
            Issue.record("expected none")
            return
        }
        guard case .resumeAndCancel = machine.taskMade(CountingTask(), mayCancel: true) else {
            Issue.record("expected resumeAndCancel")
            return
        }
        let completed = machine.taskCompleted()
        #expect(completed)
    }

    @Test func cancelWhileRunningCancelsTheTaskOnce() {
        var machine = NetworkTaskStateMachine()
        _ = machine.taskMade(CountingTask(), mayCancel: true)
        guard case .cancel = machine.cancel() else {
            Issue.record("expected cancel")
            return
        }
        guard case .none = machine.cancel() else {
            Issue.record("expected none")
            return
        }
    }

    @Test func completionDropsTheTaskAndARepeatIsIgnored() {
        var machine = NetworkTaskStateMachine()
        _ = machine.taskMade(CountingTask(), mayCancel: true)
        let completed = machine.taskCompleted()
        #expect(completed)
        guard case .completed = machine.state else {
            Issue.record("expected completed")
            return
        }
        let repeated = machine.taskCompleted()
        #expect(!repeated)
        guard case .none = machine.cancel() else {
            Issue.record("expected none")
            return
        }
    }

    @Test func cancelTwiceBeforeTheTaskIsHarmless() {
        var machine = NetworkTaskStateMachine()
        _ = machine.cancel()
        guard case .none = machine.cancel() else {
            Issue.record("expected none")
            return
        }
    }

    // A task that may not be cancelled (a bare URLSessionDataTask on Linux, issue 37 item 2) is abandoned.

    @Test func cancelWhileRunningATaskThatMayNotBeCancelledAbandonsItAndIgnoresItsCompletion() {
        var machine = NetworkTaskStateMachine()
        _ = machine.taskMade(CountingTask(), mayCancel: false)
        guard case .abandon = machine.cancel() else {
            Issue.record("expected abandon")
            return
        }
        guard case .abandoned = machine.state else {
            Issue.record("expected abandoned")
            return
        }
        guard case .none = machine.cancel() else {
            Issue.record("expected none")
            return
        }
        let handled = machine.taskCompleted()
        #expect(!handled)
        guard case .completed = machine.state else {
            Issue.record("expected completed")
            return
        }
        let repeated = machine.taskCompleted()
        #expect(!repeated)
    }

    @Test func aTaskThatMayNotBeCancelledMadeAfterACancelIsResumedAndAbandoned() {
        var machine = NetworkTaskStateMachine()
        _ = machine.cancel()
        guard case .resumeAndAbandon = machine.taskMade(CountingTask(), mayCancel: false) else {
            Issue.record("expected resumeAndAbandon")
            return
        }
        let handled = machine.taskCompleted()
        #expect(!handled)
    }

    @Test func aTaskThatMayNotBeCancelledCompletesAsUsualWhenNothingCancelsIt() {
        var machine = NetworkTaskStateMachine()
        guard case .resume = machine.taskMade(CountingTask(), mayCancel: false) else {
            Issue.record("expected resume")
            return
        }
        let completed = machine.taskCompleted()
        #expect(completed)
        guard case .none = machine.cancel() else {
            Issue.record("expected none")
            return
        }
    }
}
