import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// Observer ordering, pending events, late attachment, synchronizers, typing and retention.
struct ObserverTests {

    @Test func normalRunDeliversEventsInLifecycleOrder() {
        let recorder = EventRecorder()
        let procedure = TestProcedure()
        procedure.addObserver(recorder)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(recorder.kinds(for: procedure) == [.didAttach, .willExecute, .didExecute, .willFinish, .didFinish])
        #expect(recorder.events.first == .didAttach("TestProcedure"))
    }

    @Test func overridesRunBeforeObservers() {
        let trail = Trail()
        let procedure = HookProcedure(trail: trail) { procedure in
            procedure.cancel()
            procedure.finish()
        }
        procedure.addDidCancelBlockObserver { _, _ in trail.append("didCancel observer") }
        procedure.addWillFinishBlockObserver { _, _, _ in trail.append("willFinish observer") }
        procedure.addDidFinishBlockObserver { _, _ in trail.append("didFinish observer") }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(
            trail.entries == [
                "execute", "procedureDidCancel(isFinished: false)", "didCancel observer", "procedureWillFinish",
                "willFinish observer", "procedureDidFinish", "didFinish observer",
            ])
    }

    @Test func observersOfOneEventRunInRegistrationOrder() {
        let trail = Trail()
        let procedure = TestProcedure()
        for index in 0..<5 {
            procedure.addWillExecuteBlockObserver { _, _ in trail.append("willExecute \(index)") }
            procedure.addDidFinishBlockObserver { _, _ in trail.append("didFinish \(index)") }
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let expected = (0..<5).map { "willExecute \($0)" } + (0..<5).map { "didFinish \($0)" }
        #expect(trail.entries == expected)
    }

    @Test func pendingFinishHeldByWillFinishObserverDelaysFinishedUntilReleasedOnAnotherThread() {
        let held = PKMutex<PendingEvent?>(nil)
        let willFinish = DispatchSemaphore(value: 0)
        let procedure = TestProcedure()
        procedure.addWillFinishBlockObserver { _, _, token in
            held.withLock { $0 = token }
            willFinish.signal()
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitFor(willFinish, "willFinish")
        #expect(!procedure.isFinished)
        let kind = held.withLock { $0?.kind }
        #expect(kind == .finish)
        DispatchQueue.global().async { held.withLock { $0 = nil } }
        waitForAll(procedure)
        #expect(procedure.isFinished)
    }

    @Test func pendingExecuteHeldByWillExecuteObserverDelaysExecute() {
        let held = PKMutex<PendingEvent?>(nil)
        let willExecute = DispatchSemaphore(value: 0)
        let procedure = TestProcedure()
        procedure.addWillExecuteBlockObserver { _, token in
            held.withLock { $0 = token }
            willExecute.signal()
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitFor(willExecute, "willExecute")
        #expect(!procedure.didExecute)
        let kind = held.withLock { $0?.kind }
        #expect(kind == .execute)
        DispatchQueue.global().async { held.withLock { $0 = nil } }
        waitForAll(procedure)
        #expect(procedure.didExecute)
    }

    @Test func doBeforeEventRunsBeforeTheEvent() {
        let trail = Trail()
        let procedure = HookProcedure(trail: trail)
        procedure.addWillExecuteBlockObserver { _, token in
            token.doBeforeEvent { trail.append("before") }
            token.doThisBeforeEvent()
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(trail.entries.prefix(2) == ["before", "execute"])
    }

    @Test func observerAttachedAfterFinishGetsDidAttachThenDidFinish() {
        let procedure = TestProcedure()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let recorder = EventRecorder()
        procedure.addObserver(recorder)
        // The attach is queued behind the tail of the finishing work when that is still running, so wait for a
        // second late observer (attached after the recorder, so told after it) instead of expecting it at once.
        let told = DispatchSemaphore(value: 0)
        procedure.addDidFinishBlockObserver { _, _ in told.signal() }
        waitFor(told, "the late observer")
        #expect(recorder.kinds(for: procedure) == [.didAttach, .didFinish])
    }

    @Test func synchronizedObserverRunsOnTheGivenSerialQueue() {
        let key = DispatchSpecificKey<String>()
        let serial = DispatchQueue(label: "observer.sync")
        serial.setSpecific(key: key, value: "observer.sync")
        let seen = PKMutex<[String?]>([])
        let procedure = TestProcedure()
        procedure.addWillExecuteBlockObserver(synchronizedWith: serial) { _, _ in
            let value = DispatchQueue.getSpecific(key: key)
            seen.withLock { $0.append(value) }
        }
        procedure.addDidFinishBlockObserver(synchronizedWith: serial) { _, _ in
            let value = DispatchQueue.getSpecific(key: key)
            seen.withLock { $0.append(value) }
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(seen.withLock { $0 } == ["observer.sync", "observer.sync"])
    }

    @Test func observerSynchronizedWithAnotherProcedureRunsInItsEventContext() {
        let other = HookProcedure(name: "Other", disableAutomaticFinishing: true) { _ in }
        let ran = Atomic<Int>(0)
        let procedure = TestProcedure()
        procedure.addDidFinishBlockObserver(synchronizedWith: other) { _, _ in
            ran.add(1, ordering: .relaxed)
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let count = ran.load(ordering: .relaxed)
        #expect(count == 1)
    }

    final class Greeter: Procedure, @unchecked Sendable {
        // @unchecked Sendable: `greeting` is immutable; the superclass guards its state with its Mutex.
        let greeting = "hello"
        override func execute() { finish() }
    }

    @Test func blockObserversReceiveTheTypedSubclass() {
        let seen = PKMutex<String?>(nil)
        let procedure = Greeter()
        // Compile-time check: the block's parameter is a `Greeter`, so `greeting` is reachable without a cast.
        procedure.addDidFinishBlockObserver { greeter, _ in
            let greeting: String = greeter.greeting
            seen.withLock { $0 = greeting }
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(seen.withLock { $0 } == "hello")
    }

    @Test func observerForAnotherProcedureTypeIsNotAdded() {
        let procedure = TestProcedure()
        procedure.log.enabled = false
        let called = Atomic<Bool>(false)
        procedure.addObserver(BlockObserver<Greeter>(didAttach: { _ in called.store(true, ordering: .relaxed) }))
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let wasCalled = called.load(ordering: .relaxed)
        #expect(!wasCalled)
    }

    @Test func observersAddedWhileIdleHearTheirEventsInTheOrderAdded() {
        // A BlockObserver without a didAttach block is appended at once while the procedure is idle; one with it
        // goes through the event context to be told it was attached. Both hear what they named, in order.
        let procedure = TestProcedure()
        procedure.log.enabled = false
        let heard = PKMutex<[String]>([])
        procedure.addObserver(
            BlockObserver<TestProcedure>(
                didAttach: { _ in heard.withLock { $0.append("attach 1") } },
                willExecute: { _, _ in heard.withLock { $0.append("will execute 1") } }))
        procedure.addObserver(
            BlockObserver<TestProcedure>(
                willExecute: { _, _ in heard.withLock { $0.append("will execute 2") } },
                didFinish: { _, _ in heard.withLock { $0.append("did finish 2") } }))
        procedure.addObserver(
            BlockObserver<TestProcedure>(didAttach: { _ in heard.withLock { $0.append("attach 3") } }))
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(
            heard.withLock { $0 } == ["attach 1", "attach 3", "will execute 1", "will execute 2", "did finish 2"])
    }

    @Test func observersAreReleasedAfterFinish() async {
        let leaks = LeakCheck()
        let procedure = TestProcedure()
        do {
            let recorder = EventRecorder()
            leaks.track(recorder)
            procedure.addObserver(recorder)
        }
        #expect(leaks.alive.count == 1)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        await procedure.waitUntilFinished()
        await PKExpectReleased(leaks)
    }

    @Test func eventsStreamFromAProcedureAddedEarlierMatchesTheRecorder() async {
        let procedure = TestProcedure()
        let stream = procedure.lifecycleEvents()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        var names: [String] = []
        for await event in stream { names.append(event.description) }
        #expect(names == ["didAttach", "willExecute", "didExecute", "willFinish", "didFinish"])
    }

    /// A WillExecute observer queues three events behind the phase (a cancel, a produce holding the pending-execute
    /// token, an attach). Once the produce is processed, the procedure's own event list must not be what still
    /// holds the token (its release would then run inside the procedure's lock). The procedure must finish
    /// (cancelled, without executing) and the produced operation run.
    @Test func tokenHeldByAnAlreadyProcessedEventIsNotReleasedUnderTheProceduresLock() {
        let produced = DispatchSemaphore(value: 0)
        let procedure = TestProcedure()
        procedure.addWillExecuteBlockObserver { procedure, pendingExecute in
            procedure.cancel()
            try? procedure.produce(operation: BlockOperation { produced.signal() }, before: pendingExecute)
            procedure.addObserver(EventRecorder())
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        guard waitForAll(procedure) else { return }
        #expect(waitFor(produced, "the produced operation to run"))
        #expect(procedure.isCancelled)
        #expect(!procedure.didExecute)
    }

    @Test func blockObserversReceiveTheProcedureTypedAsItsOwnClass() {
        let trail = Trail()
        let procedure = FieldsProcedure(marker: 7, label: Payload(text: "seven"))
        procedure.addWillExecuteBlockObserver { p, _ in trail.append("willExecute \(p.marker) \(p.label.text)") }
        procedure.addDidExecuteBlockObserver { p in trail.append("didExecute \(p.marker) \(p.label.text)") }
        procedure.addDidCancelBlockObserver { p, _ in trail.append("didCancel \(p.marker) \(p.label.text)") }
        procedure.addWillAddOperationBlockObserver { p, _ in trail.append("willAdd \(p.marker) \(p.label.text)") }
        procedure.addDidAddOperationBlockObserver { p, _ in trail.append("didAdd \(p.marker) \(p.label.text)") }
        procedure.addWillFinishBlockObserver { p, _, _ in trail.append("willFinish \(p.marker) \(p.label.text)") }
        procedure.addDidFinishBlockObserver { p, _ in trail.append("didFinish \(p.marker) \(p.label.text)") }
        let generic = GenericFieldsProcedure(value: Payload(text: "generic"))
        generic.addWillExecuteBlockObserver { p, _ in trail.append("generic willExecute \(p.value.text)") }
        generic.addDidFinishBlockObserver { p, _ in trail.append("generic didFinish \(p.value.text)") }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        queue.add(procedure: generic)
        waitForAll(generic)
        #expect(
            trail.entries == [
                "willExecute 7 seven", "didExecute 7 seven", "willAdd 7 seven", "didAdd 7 seven",
                "didCancel 7 seven", "willFinish 7 seven", "didFinish 7 seven",
                "generic willExecute generic", "generic didFinish generic",
            ])
    }
}

/// A reference-typed payload, so a mistyped read would not pass by accident.
private final class Payload: Sendable {
    let text: String
    init(text: String) { self.text = text }
}

/// A procedure with stored fields of its own; `execute()` produces an operation (added after `execute()` returns),
/// then cancels and finishes.
private final class FieldsProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: both fields are immutable.
    let marker: Int
    let label: Payload

    init(marker: Int, label: Payload) {
        self.marker = marker
        self.label = label
        super.init()
    }

    override func execute() {
        try? produce(operation: BlockOperation {})
        cancel()
        finish()
    }
}

/// A generic procedure, to check block observers on a generic class too.
private final class GenericFieldsProcedure<Value: Sendable>: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `value` is immutable.
    let value: Value

    init(value: Value) {
        self.value = value
        super.init()
    }

    override func execute() { finish() }
}

/// A framework-style observer that names the events it implements: its procedure skips the others. It signals
/// `finished` at DidFinish, so a test waits for it without adding an observer of its own.
private struct SelectiveRecorder: EventSelectingObserver {
    final class Log: Sendable {
        let events = PKMutex<[String]>([])
        let finished = DispatchSemaphore(value: 0)
    }

    let log = Log()

    var observedEvents: ObserverEventKinds { [.didFinish] }

    var recorded: [String] { log.events.withLock { $0 } }

    func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        log.events.withLock { $0.append("willExecute") }
    }

    func will(finish procedure: Procedure, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        log.events.withLock { $0.append("willFinish") }
    }

    func did(finish procedure: Procedure, withErrors errors: [any Error]) {
        log.events.withLock { $0.append("didFinish") }
        log.finished.signal()
    }
}

struct EventSelectingObserverTests {

    @Test func anObserverThatNamesItsEventsGetsOnlyThoseWhenAloneOnItsProcedure() {
        let recorder = SelectiveRecorder()
        let procedure = BlockProcedure {}
        procedure.addObserver(recorder)
        ProcedureQueue().add(procedure: procedure)
        #expect(waitFor(recorder.log.finished, "the procedure"))
        #expect(recorder.recorded == ["didFinish"])
    }

    @Test func anotherObserverWantingMoreEventsMakesTheProcedureDeliverThemToAll() {
        let recorder = SelectiveRecorder()
        let willFinish = Atomic(0)
        let procedure = BlockProcedure {}
        procedure.addObserver(recorder)
        procedure.addWillFinishBlockObserver(block: { _, _, _ in willFinish.add(1, ordering: .relaxed) })
        ProcedureQueue().add(procedure: procedure)
        #expect(waitFor(recorder.log.finished, "the procedure"))
        #expect(willFinish.load(ordering: .relaxed) == 1)
        #expect(recorder.recorded == ["willFinish", "didFinish"])
    }

    @Test func aBlockObserverNamesTheEventsItHasBlocksFor() {
        let observer = BlockObserver<Procedure>(didCancel: { _, _ in }, didFinish: { _, _ in })
        #expect(observer.observedEvents == [.didCancel, .didFinish])
        #expect(AnyProcedureObserver(observer).kinds == [.didCancel, .didFinish])
        #expect(BlockObserver<Procedure>().observedEvents == [])
    }
}
