import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// An output procedure whose output is set (or left pending) by the test, and which finishes without errors.
private final class PresetOutputProcedure<Output: Sendable>: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `slot` is guarded by its PKMutex; the superclass guards its state.

    private let slot: PKMutex<Pending<ProcedureResult<Output>>>

    init(_ output: Pending<ProcedureResult<Output>>) {
        slot = PKMutex(output)
        super.init()
    }

    var output: Pending<ProcedureResult<Output>> {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }

    override func execute() { finish() }
}

/// A list of strings appended from several threads.
private final class Events: Sendable {
    private let list = PKMutex<[String]>([])
    func append(_ event: String) { list.withLock { $0.append(event) } }
    var all: [String] { list.withLock { $0 } }
}

private func context(of procedure: Procedure) -> ProcedureKitError.Context? {
    (procedure.error as? ProcedureKitError)?.context
}

private func underlying(of procedure: Procedure) -> [any Error] {
    (procedure.error as? ProcedureKitError)?.underlyingErrors ?? []
}

struct InjectionTests {

    // MARK: - BEHAVIOUR §13, items 11 to 15

    @Test func injectedProcedureRunsAfterItsDependencyWithItsOutputAsInput() {  // §13.11
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        let dependencyFinishedFirst = Atomic<Bool>(false)
        b.injectResult(from: a)
        b.addWillExecuteBlockObserver { _, _ in dependencyFinishedFirst.store(a.isFinished, ordering: .relaxed) }
        let queue = ProcedureQueue()
        queue.add(procedures: b, a)
        waitForAll(a, b)
        #expect(b.input == .ready("Hello World"))
        let dependencyFinishedFirstValue = dependencyFinishedFirst.load(ordering: .relaxed)
        #expect(dependencyFinishedFirstValue)
        PKExpectProcedureOutput(b, "Hello Hello World")
        #expect(b.dependencies.isEmpty)
    }

    @Test func transformResultIsComputedBeforeTheReceiverStarts() {  // §13.12
        let events = Events()
        let a = ResultProcedure {
            events.append("A")
            return 2
        }
        let b = TransformProcedure { (value: Int) -> Int in
            events.append("B executes with \(value)")
            return value + 1
        }
        b.injectResult(from: a) { value in
            events.append("transform")
            return value * 10
        }
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        #expect(events.all == ["A", "transform", "B executes with 20"])
        #expect(b.input == .ready(20))
        PKExpectProcedureOutput(b, 21)
    }

    @Test func failedDependencyCancelsTheReceiverWithItsErrorWithoutExecuting() {  // §13.13
        let error = TestError()
        let a = TestProcedure(name: "A", error: error)
        let b = TestProcedure(name: "B")
        b.injectResult(from: a)
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        PKExpectProcedureCancelled(b, withErrors: true)
        #expect(!b.didExecute)
        #expect(context(of: b) == .dependencyFinishedWithError)
        #expect(underlying(of: b).first as? TestError == error)
        #expect(b.input.isPending)
    }

    @Test func dependencyCancelledWithoutErrorCancelsTheReceiver() {  // §13.14
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        b.injectResult(from: a)
        a.cancel()
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        PKExpectProcedureCancelled(b, withErrors: true)
        #expect(!b.didExecute)
        // As in ProcedureKit (BEHAVIOUR §13.14): a dependency cancelled without errors gives dependenciesCancelled.
        #expect(context(of: b) == .dependenciesCancelled)
        #expect(underlying(of: b).isEmpty)
    }

    @Test func dependencyCancelledWithAnErrorPassesItOn() {
        let error = TestError()
        let a = TestProcedure(name: "A", delay: 0.05)
        let b = TestProcedure(name: "B")
        b.injectResult(from: a)
        a.addWillExecuteBlockObserver { a, _ in a.cancel(with: error) }
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        PKExpectProcedureCancelled(b, withErrors: true)
        #expect(context(of: b) == .dependencyCancelledWithError)
        #expect(underlying(of: b).first as? TestError == error)
    }

    @Test func pendingOutputAfterTheDependencyFinishedCancelsWithRequirementNotSatisfied() {  // §13.15
        let a = PresetOutputProcedure<String>(.pending)
        let b = TestProcedure(name: "B")
        b.injectResult(from: a)
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        PKExpectProcedureFinished(a)
        PKExpectProcedureCancelled(b, withErrors: true)
        #expect(!b.didExecute)
        PKExpectProcedureError(b, equals: ProcedureKitError.requirementNotSatisfied())
    }

    // MARK: - Other outcomes

    @Test func failureOutputWithoutErrorsCancelsWithDependencyFinishedWithErrors() {
        let error = TestError()
        let a = PresetOutputProcedure<String>(.ready(.failure(error)))
        let b = TestProcedure(name: "B")
        b.injectResult(from: a)
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        PKExpectProcedureCancelled(b, withErrors: true)
        #expect(context(of: b) == .dependencyFinishedWithError)
        #expect(underlying(of: b).first as? TestError == error)
    }

    @Test func throwingTransformCancelsTheReceiverWithWhatWasThrown() {
        let error = TestError()
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        b.injectResult(from: a) { (_: String) throws -> String in throw error }
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        PKExpectProcedureCancelled(b, withErrors: true)
        PKExpectProcedureError(b, equals: error)
        #expect(!b.didExecute)
    }

    @Test func injectingAProcedureIntoItselfCancelsItWithAProgrammingError() {
        let procedure = TestProcedure(name: "Narcissus")
        procedure.injectResult(from: procedure)
        #expect(procedure.isCancelled)
        #expect(procedure.dependencies.isEmpty)
        guard case .programmingError(let reason) = context(of: procedure) else {
            Issue.record("expected a programming error, got \(String(describing: procedure.error))")
            return
        }
        #expect(reason.contains("Narcissus"))
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
    }

    @Test func injectBlockReceivesBothProceduresBeforeTheReceiverExecutes() {
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        let seen = Events()
        b.inject(dependency: a) { receiver, dependency in
            seen.append("\(receiver.procedureName) <- \(dependency.procedureName) \(receiver.didExecute)")
            receiver.input = .ready("from block")
        }
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        #expect(seen.all == ["B <- A false"])
        PKExpectProcedureOutput(b, "Hello from block")
    }

    @Test func throwingInjectBlockCancelsTheReceiver() {
        let error = TestError()
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        b.inject(dependency: a) { _, _ in throw error }
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        PKExpectProcedureCancelled(b, withErrors: true)
        PKExpectProcedureError(b, equals: error)
    }

    @Test func receiverCancelledBeforeStartingDoesNotRunTheInjection() {
        let ran = Atomic<Bool>(false)
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        b.injectResult(from: a) { (value: String) -> String in
            ran.store(true, ordering: .relaxed)
            return value
        }
        b.cancel()
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        waitForAll(a, b)
        let ranValue = ran.load(ordering: .relaxed)
        #expect(!ranValue)
        PKExpectProcedureCancelled(b)
    }

    @Test func injectionChainsPassValuesAlong() {
        let a = ResultProcedure { 3 }
        let b = TransformProcedure { (value: Int) in value * 2 }
        let c = TransformProcedure { (value: Int) in "\(value)!" }
        b.injectResult(from: a)
        c.injectResult(from: b)
        let queue = ProcedureQueue()
        queue.add(procedures: c, b, a)
        waitForAll(a, b, c)
        PKExpectProcedureOutput(c, "6!")
    }

    // MARK: - Binding

    @Test func bindToForwardsAnInjectedInput() {
        let source = TestProcedure(name: "Source")
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        a.injectResult(from: source)
        a.bind(to: b)
        let queue = ProcedureQueue()
        queue.add(procedures: source, a)
        waitForAll(source, a)
        #expect(b.input == .ready("Hello World"))
    }

    @Test func bindToMadeBeforeTheInjectionStillForwards() {
        let source = TestProcedure(name: "Source")
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        a.bind(to: b)
        a.injectResult(from: source)
        b.addDependency(a)
        let queue = ProcedureQueue()
        queue.add(procedures: source, a, b)
        waitForAll(source, a, b)
        PKExpectProcedureOutput(b, "Hello Hello World")
    }

    @Test func bindToDoesNotForwardADirectlyAssignedInput() {
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        a.bind(to: b)
        a.input = .ready("direct")
        let queue = ProcedureQueue()
        queue.add(procedure: a)
        waitForAll(a)
        #expect(b.input.isPending)
    }

    @Test func bindFromCopiesTheSourcesOutputWhenItFinishes() {
        let source = ResultProcedure { "value" }
        let exposed = PresetOutputProcedure<String>(.pending)
        exposed.bind(from: source)
        let queue = ProcedureQueue()
        queue.add(procedure: source)
        waitForAll(source)
        PKExpectProcedureOutput(source, "value")
        #expect(exposed.output.value.flatMap { try? $0.get() } == "value")
    }

    // MARK: - Collections

    @Test func gatheredOutputsEveryOutputInCollectionOrder() {
        let first = TestProcedure(name: "first", delay: 0.02)
        let second = TestProcedure(name: "second")
        let third = TestProcedure(name: "third", delay: 0.01)
        first.input = .ready("1")
        second.input = .ready("2")
        third.input = .ready("3")
        let gathered = [first, second, third].gathered()
        let queue = ProcedureQueue()
        queue.add(procedures: gathered, third, second, first)
        waitForAll(first, second, third, gathered)
        PKExpectProcedureOutput(gathered, ["Hello 1", "Hello 2", "Hello 3"])
    }

    @Test func gatheredIsCancelledWhenAnElementFails() {
        let error = TestError()
        let elements = [
            ResultProcedure<Int> { 1 }, ResultProcedure<Int> { throw error },
            ResultProcedure<Int> { 3 },
        ]
        let gathered = elements.gathered()
        let queue = ProcedureQueue()
        queue.add(procedures: elements)
        queue.add(procedure: gathered)
        waitForAll(gathered)
        PKExpectProcedureCancelled(gathered, withErrors: true)
        #expect(context(of: gathered) == .dependencyFinishedWithError)
        #expect(underlying(of: gathered).first as? TestError == error)
        #expect(gathered.output.isPending)
    }

    @Test func gatheredIsCancelledWhenAnElementIsCancelled() {
        let elements = [ResultProcedure { 1 }, ResultProcedure { 2 }]
        elements[1].cancel()
        let gathered = elements.gathered()
        let queue = ProcedureQueue()
        queue.add(procedures: elements)
        queue.add(procedure: gathered)
        waitForAll(gathered)
        PKExpectProcedureCancelled(gathered, withErrors: true)
        #expect(context(of: gathered) == .dependenciesCancelled)
    }

    @Test func sequenceOutputHelpersInjectTheSourcesOutput() {
        let source = ResultProcedure { [1, 2, 3, 4] }
        let doubled = source.map { $0 * 2 }
        let evens = source.filter { $0.isMultiple(of: 2) }
        let odds = source.flatMap { $0.isMultiple(of: 2) ? nil : "\($0)" }
        let sum = source.reduce(0, +)
        let queue = ProcedureQueue()
        queue.add(procedures: doubled, evens, odds, sum)
        queue.add(procedure: source)
        waitForAll(source, doubled, evens, odds, sum)
        PKExpectProcedureOutput(doubled, [2, 4, 6, 8])
        PKExpectProcedureOutput(evens, [2, 4])
        PKExpectProcedureOutput(odds, ["1", "3"])
        PKExpectProcedureOutput(sum, 10)
    }

    @Test func sequenceOutputHelperIsCancelledWhenTheSourceFails() {
        let error = TestError()
        let source = ResultProcedure { () throws -> [Int] in throw error }
        let mapped = source.map { $0 + 1 }
        let queue = ProcedureQueue()
        queue.add(procedures: source, mapped)
        waitForAll(source, mapped)
        PKExpectProcedureCancelled(mapped, withErrors: true)
        #expect(context(of: mapped) == .dependencyFinishedWithError)
    }

    // MARK: - Memory

    @Test func injectionChainIsReleasedAfterItFinishes() async {
        let leaks = LeakCheck()
        do {
            let queue = ProcedureQueue()
            let a = ResultProcedure { 1 }
            let b = TransformProcedure { (value: Int) in value + 1 }
            let c = TransformProcedure { (value: Int) in value * 10 }
            b.injectResult(from: a)
            c.injectResult(from: b) { $0 + 1 }
            leaks.track(a, name: "A")
            leaks.track(b, name: "B")
            leaks.track(c, name: "C")
            queue.add(procedures: a, b, c)
            #expect(await waitForFinish([a, b, c], timeout: hangTimeout))
            PKExpectProcedureOutput(c, 30)
        }
        await PKExpectReleased(leaks)
    }

    @Test func failedInjectionChainIsReleasedAfterItFinishes() async {
        let leaks = LeakCheck()
        do {
            let queue = ProcedureQueue()
            let a = ResultProcedure { () throws -> Int in throw TestError() }
            let b = TransformProcedure { (value: Int) in value + 1 }
            let c = TransformProcedure { (value: Int) in value * 10 }
            b.injectResult(from: a)
            c.injectResult(from: b)
            a.bind(from: c)
            b.bind(to: c)
            leaks.track(a, name: "A")
            leaks.track(b, name: "B")
            leaks.track(c, name: "C")
            queue.add(procedures: a, b, c)
            #expect(await waitForFinish([a, b, c], timeout: hangTimeout))
            PKExpectProcedureCancelled(c, withErrors: true)
        }
        await PKExpectReleased(leaks)
    }

    @Test func injectedButNeverEnqueuedProceduresAreReleased() async {
        let leaks = LeakCheck()
        do {
            let a = TestProcedure(name: "A")
            let b = TestProcedure(name: "B")
            b.injectResult(from: a)
            b.bind(to: a)
            a.bind(from: b)
            let gathered = [a, b].gathered()
            leaks.track([a, b, gathered])
        }
        await PKExpectReleased(leaks)
    }

    @Test func gatheredProceduresAreReleasedAfterTheyFinish() async {
        let leaks = LeakCheck()
        do {
            let queue = ProcedureQueue()
            let elements = (0..<5).map { index in ResultProcedure { index } }
            let gathered = elements.gathered()
            leaks.track(elements)
            leaks.track(gathered, name: "gathered")
            queue.add(procedures: elements)
            queue.add(procedure: gathered)
            #expect(await waitForFinish(gathered, timeout: hangTimeout))
            PKExpectProcedureOutput(gathered, [0, 1, 2, 3, 4])
        }
        await PKExpectReleased(leaks)
    }
}

// MARK: - The README's "Dependency Injection" snippets

/// Stand-ins for the README's location types (ProcedureKitLocation is not part of this product).
private struct Location: Sendable, Equatable {
    var speed: Double
}

private final class UserLocationProcedure: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `slot` is guarded by its PKMutex; the superclass guards its state.
    private let slot = PKMutex<Pending<ProcedureResult<Location>>>(.pending)
    var output: Pending<ProcedureResult<Location>> {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
    override func execute() { finish(withResult: .success(Location(speed: 12.5))) }
}

private final class ProcessUserLocation: Procedure, InputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `slot` is guarded by its PKMutex; the superclass guards its state.
    private let slot = PKMutex<Pending<Location>>(.pending)
    var input: Pending<Location> {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
    override func execute() { finish() }
}

private final class ProcessUserSpeed: Procedure, InputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `slot` is guarded by its PKMutex; the superclass guards its state.
    private let slot = PKMutex<Pending<Double>>(.pending)
    var input: Pending<Double> {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
    override func execute() { finish() }
}

struct ReadmeInjectionSnippetTests {

    @Test func injectResultSnippetCompilesAndRuns() {
        let queue = ProcedureQueue()
        // --- README snippet, verbatim ---
        // This class is part of the framework, it
        // conforms to OutputProcedure
        let getLocation = UserLocationProcedure()

        // Lets assume we've written this, it
        // conforms to InputProcedure
        let processLocation = ProcessUserLocation()

        // This line sets up dependency & injection
        // it automatically handles errors and cancellation
        processLocation.injectResult(from: getLocation)

        // Still need to add both procedures to the queue
        queue.add(procedures: getLocation, processLocation)
        // --- end of snippet ---
        waitForAll(getLocation, processLocation)
        #expect(processLocation.input == .ready(Location(speed: 12.5)))
    }

    @Test func injectResultWithTransformSnippetCompilesAndRuns() {
        let queue = ProcedureQueue()
        // The snippet declares `processSpeed` but injects into `processLocation`, a speed processor here.
        let processLocation = ProcessUserSpeed()
        // --- README snippet, verbatim ---
        // This class is part of the framework, it
        // conforms to OutputProcedure
        let getLocation = UserLocationProcedure()

        // Lets assume we've written this, it
        // conforms to InputProcedure, and
        // requires a CLLocationSpeed value
        let processSpeed = ProcessUserSpeed()

        // This line sets up dependency & injection
        // it automatically handles errors and cancellation
        // and the closure extracts the speed value
        processLocation.injectResult(from: getLocation) { $0.speed }

        // Still need to add both procedures to the queue
        queue.add(procedures: getLocation, processLocation)
        // --- end of snippet ---
        _ = processSpeed
        waitForAll(getLocation, processLocation)
        #expect(processLocation.input == .ready(12.5))
    }
}
