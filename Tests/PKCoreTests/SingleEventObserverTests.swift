import Foundation
import PKTesting
import Testing

/// ProcedureKit's single-event block observers: each runs its block for its one event, typed, once.
struct SingleEventObserverTests {

    @Test func eachObserverRunsForItsEventOnce() {
        let trail = Trail()
        let child = TestProcedure(name: "Child")
        let procedure = TestProcedure(name: "Parent", produced: child)
        var attached = WillExecuteObserver<TestProcedure> { procedure, _ in
            trail.append("willExecute \(procedure.name ?? "")")
        }
        attached.didAttachToProcedure = { procedure in trail.append("attached \(procedure.name ?? "")") }
        procedure.addObserver(attached)
        procedure.addObserver(
            WillAddOperationObserver<TestProcedure> { _, operation in trail.append("willAdd \(operation.name ?? "")") })
        procedure.addObserver(
            DidAddOperationObserver<TestProcedure> { _, operation in trail.append("didAdd \(operation.name ?? "")") })
        procedure.addObserver(DidExecuteObserver<TestProcedure> { _ in trail.append("didExecute") })
        procedure.addObserver(
            WillFinishObserver<TestProcedure> { _, errors, _ in trail.append("willFinish \(errors.count)") })
        procedure.addObserver(
            DidFinishObserver<TestProcedure> { _, errors in trail.append("didFinish \(errors.count)") })
        procedure.addObserver(DidCancelObserver<TestProcedure> { _, _ in trail.append("didCancel") })
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure, child)
        let entries = trail.entries
        #expect(entries.count == 7)
        #expect(
            Set(entries) == [
                "attached Parent", "willExecute Parent", "willAdd Child", "didAdd Child", "didExecute", "willFinish 0",
                "didFinish 0",
            ])
        #expect(Array(entries.prefix(2)) == ["attached Parent", "willExecute Parent"])
        #expect(entries.firstIndex(of: "willAdd Child")! < entries.firstIndex(of: "didAdd Child")!)
        #expect(entries.last == "didFinish 0")
        #expect(!entries.contains("didCancel"))
    }

    @Test func didCancelGetsTheCancelsErrors() {
        let errors = PKMutex<[String]>([])
        let procedure = TestProcedure(delay: 0.05)
        procedure.addObserver(
            DidCancelObserver<TestProcedure> { _, cancelErrors in errors.withLock { $0 = cancelErrors.map { "\($0)" } }
            })
        procedure.cancel(with: TestError())
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(errors.withLock { $0.count } == 1)
    }

    @Test func willFinishHoldsTheFinishWhileItKeepsTheToken() {
        let held = PKMutex<PendingFinishEvent?>(nil)
        let observed = DispatchSemaphore(value: 0)
        let procedure = TestProcedure()
        procedure.addObserver(
            WillFinishObserver<TestProcedure> { _, _, pending in
                held.withLock { $0 = pending }
                observed.signal()
            })
        ProcedureQueue().add(procedure: procedure)
        _ = observed.wait(timeout: .now() + hangTimeout)
        #expect(held.withLock { $0 != nil }, "the observer ran")
        #expect(!procedure.isFinished, "the finish waits for the token")
        held.withLock { $0 = nil }
        waitForAll(procedure)
        #expect(procedure.isFinished)
    }

    @Test func aSynchronizedObserverRunsOnItsQueue() {
        let queue = DispatchQueue(label: "SingleEventObserverTests")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let ranOnQueue = PKMutex<Bool?>(nil)
        let procedure = TestProcedure()
        procedure.addObserver(
            DidExecuteObserver<TestProcedure>(synchronizedWith: queue) { _ in
                ranOnQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) == true }
            })
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(ranOnQueue.withLock { $0 } == true)
    }
}
