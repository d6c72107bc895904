import Foundation
import PKCore
import Testing

@testable import PKObservers

/// State × event for the profiler's state machine, without threads or clocks.
///
/// Pairs left out trap by design (`preconditionFailure`) and PKCore never sends them: any procedure event before
/// `attach` (PKCore sends `didAttach` first), and a child result while unattached or after the result was
/// reported (every child result is awaited before reporting).
struct ProfilerStateMachineTests {

    typealias Machine = ProfilerStateMachine

    final class Dummy: Procedure, @unchecked Sendable {}

    static let profiled = Dummy()
    static let other = Dummy()
    static var profiledKey: ObjectIdentifier { ObjectIdentifier(profiled) }
    static var otherKey: ObjectIdentifier { ObjectIdentifier(other) }

    /// Reachable configurations.
    enum Setup: String, CaseIterable, CustomTestStringConvertible {
        case unattached
        case recording
        case recordingWithChild
        case awaitingChild
        case reported

        var testDescription: String { rawValue }
    }

    static func machine(_ setup: Setup) -> Machine {
        var machine = Machine(created: 100)
        switch setup {
        case .unattached:
            break
        case .recording:
            #expect(machine.attach(to: profiledKey, identity: profiled.identity, at: 1) == .none)
        case .recordingWithChild:
            machine = Self.machine(.recording)
            #expect(machine.willAddChild(profiledKey) == .attachChildProfiler)
        case .awaitingChild:
            machine = Self.machine(.recordingWithChild)
            #expect(machine.didFinish(profiledKey, at: 5) == .none)
        case .reported:
            machine = Self.machine(.recording)
            guard case .report = machine.didFinish(profiledKey, at: 5) else {
                Issue.record("finishing without children did not report")
                return machine
            }
        }
        return machine
    }

    static func child(_ name: String, created: TimeInterval) -> ProfileResult {
        ProfileResult(
            identity: Dummy().identity, created: created, attached: 0, started: 0, cancelled: nil, finished: 1,
            children: [])
    }

    // MARK: - attach

    @Test func attachingStartsRecording() {
        var machine = Self.machine(.unattached)
        #expect(machine.attach(to: Self.profiledKey, identity: Self.profiled.identity, at: 1) == .none)
        guard case .recording(let recording) = machine.state else {
            Issue.record("not recording: \(machine.state)")
            return
        }
        #expect(recording.attached == 1)
        #expect(recording.identity == Self.profiled.identity)
    }

    @Test(arguments: [Setup.recording, .recordingWithChild, .awaitingChild, .reported])
    func aSecondAttachmentIsRejectedAndChangesNothing(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        #expect(machine.attach(to: Self.otherKey, identity: Self.other.identity, at: 9) == .rejectSecondAttachment)
        #expect(
            machine.attach(to: Self.profiledKey, identity: Self.profiled.identity, at: 9) == .rejectSecondAttachment)
        #expect(machine.state == before)
    }

    // MARK: - willExecute, didCancel

    @Test func theFirstStartAndTheFirstCancelAreKept() {
        var machine = Self.machine(.recording)
        machine.willExecute(Self.profiledKey, at: 2)
        machine.willExecute(Self.profiledKey, at: 3)
        machine.didCancel(Self.profiledKey, at: 4)
        machine.didCancel(Self.profiledKey, at: 5)
        guard case .report(let result) = machine.didFinish(Self.profiledKey, at: 6) else {
            Issue.record("did not report")
            return
        }
        #expect(result.started == 2)
        #expect(result.cancelled == 4)
        #expect(result.finished == 6)
        #expect(result.created == 100)
    }

    @Test(arguments: Setup.allCases.filter { $0 != .unattached })
    func anotherProceduresEventsAreIgnored(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        machine.willExecute(Self.otherKey, at: 2)
        machine.didCancel(Self.otherKey, at: 3)
        #expect(machine.willAddChild(Self.otherKey) == .none)
        #expect(machine.didFinish(Self.otherKey, at: 4) == .none)
        #expect(machine.state == before)
    }

    @Test(arguments: [Setup.awaitingChild, .reported])
    func eventsAfterTheProcedureFinishedAreIgnored(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        machine.willExecute(Self.profiledKey, at: 7)
        machine.didCancel(Self.profiledKey, at: 7)
        #expect(machine.willAddChild(Self.profiledKey) == .none)
        #expect(machine.didFinish(Self.profiledKey, at: 8) == .none)
        #expect(machine.state == before)
    }

    // MARK: - Children

    @Test func aChildReportingBeforeItsParentFinishesIsNested() {
        var machine = Self.machine(.recordingWithChild)
        let child = Self.child("Child", created: 101)
        #expect(machine.childDidReport(child) == .none)
        guard case .report(let result) = machine.didFinish(Self.profiledKey, at: 6) else {
            Issue.record("did not report")
            return
        }
        #expect(result.children == [child])
    }

    @Test func theLastChildToReportAfterTheParentFinishedCompletesTheResult() {
        var machine = Self.machine(.awaitingChild)
        #expect(machine.willAddChild(Self.profiledKey) == .none)  // too late: the procedure has finished
        let child = Self.child("Child", created: 101)
        guard case .report(let result) = machine.childDidReport(child) else {
            Issue.record("did not report")
            return
        }
        #expect(result.children == [child])
        #expect(result.finished == 5)
        #expect(machine.state == .reported)
    }

    @Test func theResultWaitsForEveryChild() {
        var machine = Self.machine(.recordingWithChild)
        #expect(machine.willAddChild(Self.profiledKey) == .attachChildProfiler)
        #expect(machine.didFinish(Self.profiledKey, at: 5) == .none)
        #expect(machine.childDidReport(Self.child("Second", created: 103)) == .none)
        guard case .report(let result) = machine.childDidReport(Self.child("First", created: 102)) else {
            Issue.record("did not report")
            return
        }
        // Children are listed in the order they were added (their profilers' creation), not the order they finished.
        #expect(result.children.map(\.created) == [102, 103])
    }

    @Test func aRepeatedDidFinishReportsOnce() {
        var machine = Self.machine(.reported)
        #expect(machine.didFinish(Self.profiledKey, at: 9) == .none)
        machine = Self.machine(.awaitingChild)
        #expect(machine.didFinish(Self.profiledKey, at: 9) == .none)
        guard case .report(let result) = machine.childDidReport(Self.child("Child", created: 101)) else {
            Issue.record("did not report")
            return
        }
        #expect(result.finished == 5)
    }
}
