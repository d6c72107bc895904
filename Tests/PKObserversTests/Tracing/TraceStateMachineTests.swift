import Foundation
import PKCore
import Testing

@testable import PKObservers

/// State × event for a trace observer's state machine, without threads, clocks or a recorder.
///
/// Pairs left out trap by design (`preconditionFailure`) and PKCore never sends them: any procedure event while
/// unattached or attaching (PKCore sends `didAttach` first, and registration completes inside it), and
/// `registered`/`registrationRefused` outside `attaching`.
struct TraceStateMachineTests {

    typealias Machine = TraceStateMachine

    final class Dummy: Procedure, @unchecked Sendable {}

    // The procedures stay alive, so their identifiers stay distinct.
    static let tracedProcedure = Dummy()
    static let otherProcedure = Dummy()
    static var traced: ObjectIdentifier { ObjectIdentifier(tracedProcedure) }
    static var other: ObjectIdentifier { ObjectIdentifier(otherProcedure) }

    enum Setup: String, CaseIterable, CustomTestStringConvertible {
        case unattached, attaching, waiting, executing, finishing, finished, declined
        var testDescription: String { rawValue }
    }

    static let setup = Machine.Setup(queue: "q", attachedOnEnqueue: true)

    static func machine(_ setup: Setup) -> Machine {
        var machine = Machine(setup: Self.setup)
        switch setup {
        case .unattached:
            break
        case .attaching:
            #expect(machine.attachBegan(traced) == .register(Self.setup))
        case .waiting:
            machine = Self.machine(.attaching)
            machine.registered(traced, id: 7, name: "Seven", category: "Dummy", at: 10, links: Machine.Links())
        case .executing:
            machine = Self.machine(.waiting)
            machine.willExecute(traced, at: 20)
        case .finishing:
            machine = Self.machine(.executing)
            machine.willFinish(traced, addedDependencies: [], at: 28)
        case .finished:
            machine = Self.machine(.finishing)
            _ = machine.didFinish(traced, at: 30, errors: [], cancelled: false)
        case .declined:
            machine = Self.machine(.attaching)
            machine.registrationRefused(traced)
        }
        return machine
    }

    static func record(_ action: Machine.FinishAction) -> TraceRecord? {
        guard case .record(let record, _) = action else { return nil }
        return record
    }

    // MARK: - Attaching

    @Test(arguments: Setup.allCases.filter { $0 != .unattached })
    func anyFurtherAttachmentIsDeclined(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        #expect(machine.attachBegan(Self.other) == .declineSecondAttachment)
        #expect(machine.attachBegan(Self.traced) == .declineSecondAttachment)
        #expect(machine.state == before)
    }

    @Test func aRefusedRegistrationTracesNothing() {
        var machine = Self.machine(.declined)
        machine.willExecute(Self.traced, at: 1)
        machine.didCancel(Self.traced, at: 1, errors: [])
        #expect(machine.linkForChild(of: Self.traced, kind: .child, at: 1, thread: 1) == nil)
        #expect(machine.didFinish(Self.traced, at: 2, errors: [], cancelled: false) == .none)
        #expect(machine.unfinishedRecord(at: 5) == nil)
        #expect(machine.state == .declined)
    }

    // MARK: - The lifecycle

    @Test func aFullLifecycleProducesItsRecord() {
        var machine = Self.machine(.attaching)
        var links = Machine.Links()
        links.seen = [Self.other]
        links.resolved = [3]
        links.dependents = [9]
        machine.registered(Self.traced, id: 7, name: "Seven", category: "Dummy", at: 10, links: links)
        machine.willExecute(Self.traced, at: 20)
        machine.didExecute(Self.traced, thread: 1234)
        machine.didCancel(Self.traced, at: 25, errors: ["stop"])
        machine.willFinish(Self.traced, addedDependencies: [4], at: 28)
        let record = Self.record(
            machine.didFinish(Self.traced, at: 30, errors: ["stop"], cancelled: true, thread: 1234, inPlace: true))
        #expect(
            record
                == TraceRecord(
                    id: 7, name: "Seven", category: "Dummy", queue: "q", attachedOnEnqueue: true, link: nil,
                    attachedAt: 10, startedAt: 20, endedAt: 30, thread: 1234,
                    cancellation: TraceRecord.Cancellation(at: 25, errors: ["stop"]), status: .cancelled,
                    errors: ["stop"], dependencies: [3, 4], dependents: [9], finishingAt: 28, finishThread: 1234,
                    finishedInPlace: true))
        #expect(machine.state == .finished)
    }

    @Test(arguments: [
        ([String](), false, TraceRecord.Status.finished), (["e"], false, .failed), ([], true, .cancelled),
        (["e"], true, .cancelled),
    ])
    func theStatusFollowsCancellationThenErrors(_ errors: [String], _ cancelled: Bool, _ status: TraceRecord.Status) {
        var machine = Self.machine(.finishing)
        #expect(
            Self.record(machine.didFinish(Self.traced, at: 30, errors: errors, cancelled: cancelled))?.status == status)
    }

    @Test(arguments: [Setup.waiting, .executing, .finishing])
    func finishingFromAnyLiveStateRecordsAndEnds(_ setup: Setup) {
        var machine = Self.machine(setup)
        let record = Self.record(machine.didFinish(Self.traced, at: 40, errors: [], cancelled: false))
        #expect(record?.id == 7)
        #expect(record?.endedAt == 40)
        #expect(record?.startedAt == (setup == .waiting ? nil : 20))
        #expect(machine.state == .finished)
    }

    @Test func interestsAreWithdrawnAtFinishWhenWillFinishWasMissed() {
        var machine = Self.machine(.attaching)
        var links = Machine.Links()
        links.seen = [Self.other]
        links.awaiting = [Self.other]
        machine.registered(Self.traced, id: 7, name: "Seven", category: "Dummy", at: 10, links: links)
        guard case .record(_, let withdrawing) = machine.didFinish(Self.traced, at: 30, errors: [], cancelled: false)
        else {
            Issue.record("no record")
            return
        }
        #expect(withdrawing == [Self.other])
    }

    @Test func linksAreSettledOnce() {
        var machine = Self.machine(.executing)
        #expect(machine.linksToSettle(Self.traced)?.id == 7)
        machine.willFinish(Self.traced, addedDependencies: [5], at: 28)
        #expect(machine.linksToSettle(Self.traced) == nil)
        machine.willFinish(Self.traced, addedDependencies: [6], at: 29)  // a repeat changes nothing
        #expect(Self.record(machine.didFinish(Self.traced, at: 30, errors: [], cancelled: false))?.dependencies == [5])
    }

    @Test func theFirstStartThreadAndCancelAreKept() {
        var machine = Self.machine(.waiting)
        machine.willExecute(Self.traced, at: 20)
        machine.willExecute(Self.traced, at: 21)
        machine.didExecute(Self.traced, thread: 1)
        machine.didExecute(Self.traced, thread: 2)
        machine.didCancel(Self.traced, at: 22, errors: ["a"])
        machine.didCancel(Self.traced, at: 23, errors: ["b"])
        let record = Self.record(machine.didFinish(Self.traced, at: 30, errors: [], cancelled: true))
        #expect(record?.startedAt == 20)
        #expect(record?.thread == 1)
        #expect(record?.cancellation == TraceRecord.Cancellation(at: 22, errors: ["a"]))
    }

    @Test func theFinishingTimeIsThatOfTheFirstWillFinish() {
        var machine = Self.machine(.executing)
        machine.willFinish(Self.traced, addedDependencies: [], at: 26)
        machine.willFinish(Self.traced, addedDependencies: [], at: 27)
        #expect(Self.record(machine.didFinish(Self.traced, at: 30, errors: [], cancelled: false))?.finishingAt == 26)
    }

    @Test func aFinishWithoutItsWillFinishHasNoFinishingTime() {
        var machine = Self.machine(.executing)
        #expect(Self.record(machine.didFinish(Self.traced, at: 30, errors: [], cancelled: false))?.finishingAt == nil)
    }

    /// In place: finished on the thread `execute()` ran on, which had started no other procedure meanwhile (the
    /// observer asks the thread's mark and passes `inPlace`).
    @Test(arguments: [
        (UInt64?(7), true, true), (UInt64?(8), true, false), (UInt64?(7), false, false), (UInt64?.none, true, false),
    ])
    func aFinishIsInPlaceOnlyOnTheExecuteThreadStillMarkedAsItsOwn(_ thread: UInt64?, _ marked: Bool, _ inPlace: Bool) {
        var machine = Self.machine(.executing)
        machine.didExecute(Self.traced, thread: 7)
        let record = Self.record(
            machine.didFinish(Self.traced, at: 30, errors: [], cancelled: false, thread: thread, inPlace: marked))
        #expect(record?.finishThread == thread)
        #expect(record?.finishedInPlace == inPlace)
    }

    @Test func theRegisteredStatesShareOneTracedProcedureUpdatedInPlace() throws {
        var machine = Self.machine(.waiting)
        guard case .waiting(let traced) = machine.state else {
            Issue.record("not waiting: \(machine.state)")
            return
        }
        machine.willExecute(Self.traced, at: 20)
        #expect(machine.state == .executing(traced))
        #expect(traced.startedAt == 20)
        machine.willFinish(Self.traced, addedDependencies: [], at: 28)
        #expect(machine.state == .finishing(traced))
        #expect(traced.finishingAt == 28)
    }

    @Test func anExecuteWhoseStartWasMissedStillRecordsItsThread() {
        var machine = Self.machine(.waiting)
        machine.didExecute(Self.traced, thread: 99)
        let record = Self.record(machine.didFinish(Self.traced, at: 30, errors: [], cancelled: false))
        #expect(record?.startedAt == nil)
        #expect(record?.thread == 99)
    }

    @Test(arguments: [Setup.waiting, .executing, .finishing, .finished, .declined])
    func anotherProceduresEventsAreIgnored(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        machine.willExecute(Self.other, at: 50)
        machine.didExecute(Self.other, thread: 50)
        machine.didCancel(Self.other, at: 50, errors: [])
        machine.willFinish(Self.other, addedDependencies: [50], at: 50)
        #expect(machine.linkForChild(of: Self.other, kind: .produced, at: 50, thread: 50) == nil)
        #expect(machine.linksToSettle(Self.other) == nil)
        #expect(machine.didFinish(Self.other, at: 50, errors: [], cancelled: false) == .none)
        #expect(machine.state == before)
    }

    @Test func nothingHappensAfterFinishing() {
        var machine = Self.machine(.finished)
        machine.willExecute(Self.traced, at: 50)
        machine.didCancel(Self.traced, at: 50, errors: [])
        #expect(machine.didFinish(Self.traced, at: 50, errors: [], cancelled: false) == .none)
        #expect(machine.unfinishedRecord(at: 60) == nil)
        #expect(machine.state == .finished)
    }

    // MARK: - Children, queue names, unfinished records

    @Test(arguments: [Setup.waiting, .executing, .finishing])
    func childrenAreLinkedToTheTracedProcedure(_ setup: Setup) {
        let machine = Self.machine(setup)
        #expect(
            machine.linkForChild(of: Self.traced, kind: .child, at: 25, thread: 3)
                == TraceRecord.Link(kind: .child, parent: 7, at: 25, thread: 3))
    }

    @Test func aQueueNameLearntLaterIsKeptUnlessOneIsKnown() {
        var machine = Machine(setup: Machine.Setup(attachedOnEnqueue: false))
        _ = machine.attachBegan(Self.traced)
        machine.registered(Self.traced, id: 1, name: "One", category: "Dummy", at: 0, links: Machine.Links())
        machine.queueIsKnown("first")
        machine.queueIsKnown("second")
        #expect(machine.unfinishedRecord(at: 5)?.queue == "first")
    }

    @Test(arguments: [Setup.waiting, .executing, .finishing])
    func aLiveProcedureHasAnUnfinishedRecord(_ setup: Setup) {
        let machine = Self.machine(setup)
        let record = machine.unfinishedRecord(at: 99)
        #expect(record?.status == .unfinished)
        #expect(record?.endedAt == 99)
        #expect(record.map(TraceTimeline.ownBegin) == (setup == .waiting ? 10 : 20))
    }
}
