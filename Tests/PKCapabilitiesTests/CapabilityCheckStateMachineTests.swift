import Testing

@testable import PKCapabilities

/// Every state × input of the capability check machine, without threads or clocks.
struct CapabilityCheckStateMachineTests {

    typealias Machine = CapabilityCheckStateMachine<String, Int>

    /// The states, each reached through the inputs that lead to it.
    enum Reached: String, CaseIterable, CustomTestStringConvertible {
        case idle, requesting, requestingArmed, reading, readingArmed, finished, cancelled

        var testDescription: String { rawValue }

        var machine: Machine {
            var machine = Machine()
            switch self {
            case .idle: break
            case .requesting: _ = machine.start(.requestThenRead, isAvailable: true)
            case .requestingArmed:
                _ = machine.start(.requestThenRead, isAvailable: true)
                _ = machine.armed(7)
            case .reading: _ = machine.start(.read, isAvailable: true)
            case .readingArmed:
                _ = machine.start(.read, isAvailable: true)
                _ = machine.armed(7)
            case .finished:
                _ = machine.start(.read, isAvailable: true)
                _ = machine.statusRead("ok")
            case .cancelled: _ = machine.cancelled()
            }
            return machine
        }

        var timer: Int? { self == .requestingArmed || self == .readingArmed ? 7 : nil }
    }

    @Test func startRequestsOnlyWhenAskedToAndAvailable() {
        var machine = Machine()
        #expect(machine.start(.requestThenRead, isAvailable: true).isRequest)
        machine = Machine()
        #expect(machine.start(.requestThenRead, isAvailable: false).isReadStatus)
        machine = Machine()
        #expect(machine.start(.read, isAvailable: false).isReadStatus)
        machine = Machine()
        #expect(machine.start(.readIfAvailable, isAvailable: true).isReadStatus)
        machine = Machine()
        #expect(machine.start(.readIfAvailable, isAvailable: false).isReportUnavailable)
        #expect(!machine.isWaiting)
    }

    @Test func startAfterACancelReportsTheCancellationAgain() {
        var machine = Reached.cancelled.machine
        #expect(machine.start(.read, isAvailable: true).cancelledTimer == .some(nil))
    }

    @Test(arguments: Reached.allCases)
    func requestCompletedMovesARequestToReadingAndIsIgnoredOtherwise(state: Reached) {
        guard state != .idle else { return }  // impossible: a precondition
        var machine = state.machine
        let action = machine.requestCompleted()
        switch state {
        case .requesting, .requestingArmed:
            #expect(action.isReadStatus)
            #expect(machine.isWaiting)
            // The timer armed while requesting is kept for the status read.
            #expect(machine.statusRead("ok").completedTimer == .some(state.timer))
        case .reading, .readingArmed, .finished, .cancelled:
            #expect(action.isNone)
        case .idle:
            Issue.record("unreachable")
        }
    }

    @Test(arguments: Reached.allCases)
    func statusReadCompletesOnlyWhileReading(state: Reached) {
        guard state != .idle else { return }
        var machine = state.machine
        let action = machine.statusRead("ok")
        switch state {
        case .reading, .readingArmed:
            #expect(action.completedTimer == .some(state.timer))
            #expect(!machine.isWaiting)
            #expect(machine.statusRead("again").isNone)
        case .requesting, .requestingArmed, .finished, .cancelled:
            #expect(action.isNone)
        case .idle:
            Issue.record("unreachable")
        }
    }

    @Test(arguments: Reached.allCases)
    func timedOutEndsOnlyAWaitingCheck(state: Reached) {
        guard state != .idle else { return }
        var machine = state.machine
        let action = machine.timedOut()
        switch state {
        case .requesting, .requestingArmed, .reading, .readingArmed:
            #expect(action.timedOutTimer == .some(state.timer))
            #expect(machine.statusRead("late").isNone)
            #expect(machine.requestCompleted().isNone)
            #expect(machine.cancelled().isNone)
        case .finished, .cancelled:
            #expect(action.isNone)
        case .idle:
            Issue.record("unreachable")
        }
    }

    @Test(arguments: Reached.allCases)
    func cancelledEndsAWaitingCheckAndIsRememberedBeforeStart(state: Reached) {
        var machine = state.machine
        let action = machine.cancelled()
        switch state {
        case .idle:
            #expect(action.isNone)
            #expect(machine.start(.read, isAvailable: true).cancelledTimer == .some(nil))
        case .requesting, .requestingArmed, .reading, .readingArmed:
            #expect(action.cancelledTimer == .some(state.timer))
            #expect(machine.timedOut().isNone)
        case .finished, .cancelled:
            #expect(action.isNone)
        }
    }

    @Test(arguments: [Reached.finished, .cancelled])
    func aTimerArmedAfterTheEndIsCancelled(state: Reached) {
        var machine = state.machine
        guard case .cancelTimer(let timer) = machine.armed(9) else {
            Issue.record("expected cancelTimer")
            return
        }
        #expect(timer == 9)
    }
}

extension CapabilityCheckStateMachine.Action {
    var isNone: Bool { if case .none = self { true } else { false } }
    var isRequest: Bool { if case .request = self { true } else { false } }
    var isReadStatus: Bool { if case .readStatus = self { true } else { false } }
    var isReportUnavailable: Bool { if case .reportUnavailable = self { true } else { false } }
    /// The timer handed back with a completion; `nil` when the action is not a completion.
    var completedTimer: Timer?? { if case .complete(_, _, let timer) = self { timer } else { nil } }
    var timedOutTimer: Timer?? { if case .timeOut(let timer) = self { timer } else { nil } }
    var cancelledTimer: Timer?? { if case .cancel(let timer) = self { timer } else { nil } }
}
