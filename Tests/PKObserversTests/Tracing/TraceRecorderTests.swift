import Dispatch
import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

struct TestFailure: Error, CustomStringConvertible {
    let description: String
}

/// TraceRecorder attached to a queue: what the written trace holds, read back as JSON.
struct TraceRecorderTests {

    let recorder = TraceRecorder(name: "Tests")
    let queue = ProcedureQueue(name: "recorded")

    init() {
        queue.addObserver(recorder)
    }

    /// Adds `procedures`, waits for them and for the queue to empty, and reads the trace back.
    func run(_ procedures: [Procedure], sourceLocation: SourceLocation = #_sourceLocation) -> ParsedTrace? {
        queue.add(procedures: procedures)
        waitForAll(procedures, sourceLocation: sourceLocation)
        waitUntilEmpty(queue, sourceLocation: sourceLocation)
        return ParsedTrace(recorder.traceData(), sourceLocation: sourceLocation)
    }

    // MARK: - Slices

    @Test func everyProcedureAddedToTheQueueIsRecorded() throws {
        let procedures = (0..<20).map { TestProcedure(name: "Step \($0)") }
        let trace = try #require(run(procedures))
        #expect(trace.viewerProblems == [])
        #expect(Set(trace.procedureSlices.map(\.name)) == Set(procedures.map(\.procedureName)))
        #expect(trace.procedureSlices.count == 20)
        #expect(trace.procedureSlices.allSatisfy { $0.status == "finished" && $0.cat == "TestProcedure" })
        #expect(trace.procedureSlices.allSatisfy { $0.args["queue"] as? String == "recorded" })
        #expect(trace.phase("i").filter { $0.name == "enqueued" }.count == 20)
        #expect(trace.phase("M").first { $0.name == "process_name" }?.args["name"] as? String == "Tests")
        #expect(trace.displayTimeUnit == "ms")
        #expect(trace.otherNumber("droppedEvents") == 0)
        #expect(trace.otherNumber("maximumEventCount") == TraceRecorder.defaultMaximumEventCount)
    }

    @Test func anInjectedClockIsReadOutsideTheTracesLock() {
        // The clock is user code: one that reads the trace (here, as a clock backed by something that logs would)
        // deadlocked when the queue's trace read it under its lock (issue 22).
        let clock = ReentrantClock()
        let recorder = TraceRecorder(clock: clock)
        clock.setHook { [weak recorder] in _ = recorder?.traceData() }
        let queue = ProcedureQueue()
        queue.addObserver(recorder)
        let procedure = TestProcedure(name: "Timed")
        queue.add(procedure: procedure)
        waitForAll(procedure)
        clock.setHook(nil)
        #expect(procedure.isFinished)
        #expect(clock.hookRuns > 0)
    }

    @Test func slicesSpanExecuteToFinishInMicroseconds() throws {
        let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: 0))
        let recorder = TraceRecorder(clock: clock)
        let queue = ProcedureQueue()
        queue.addObserver(recorder)
        let procedure = ClosureProcedure("Timed") { _ in clock.advance(by: 0.5) }
        // Held back by a WillExecute observer until the clock reads 3 s: enqueued at 1 s, started at 3 s.
        procedure.addWillExecuteBlockObserver { _, _ in clock.advance(by: 2) }
        clock.advance(by: 1)
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let trace = try #require(ParsedTrace(recorder.traceData()))
        let slice = try #require(trace.procedure("Timed"))
        #expect(slice.ts == 3_000_000)
        #expect(slice.dur == 500_000)
        #expect(trace.phase("i").first { $0.name == "enqueued" }?.ts == 1_000_000)
        #expect(trace.viewerProblems == [])
    }

    @Test func theRealThreadIdIsAnArgumentAndTheLaneIsTheProceduresOwnNamedAfterIt() throws {
        let procedures = (0..<4).map { TestProcedure(name: "Worker \($0)") }
        let trace = try #require(run(procedures))
        let lanes = trace.procedureSlices.compactMap(\.tid)
        #expect(Set(lanes).count == 4)
        let threads = trace.procedureSlices.compactMap { ($0.args["thread"] as? NSNumber)?.intValue }
        #expect(threads.count == 4)
        #expect(threads.allSatisfy { $0 > 0 })
        // Lanes are named after their procedure, without its number: a viewer shows the lane's number (its tid)
        // after the name already.
        for slice in trace.procedureSlices {
            let name = trace.phase("M").first { $0.name == "thread_name" && $0.tid == slice.tid }?.args["name"]
            #expect(name as? String == slice.name)
        }
    }

    @Test func aFailedProcedureCarriesItsErrors() throws {
        let failing = TestProcedure(name: "Failing", error: TestFailure(description: "disk full"))
        let trace = try #require(run([failing]))
        let slice = try #require(trace.procedure("Failing"))
        #expect(slice.status == "failed")
        #expect(slice.errors == ["disk full"])
    }

    @Test func cancellationIsAnInstantAndTheSlicesStatus() throws {
        let gate = DispatchSemaphore(value: 0)
        let running = ClosureProcedure("Running") { _ in gate.wait() }
        let waiting = TestProcedure(name: "Waiting")
        waiting.addDependency(running)
        queue.add(procedures: [running, waiting])
        waiting.cancel(with: TestFailure(description: "not needed"))
        gate.signal()
        waitForAll(running, waiting)
        waitUntilEmpty(queue)
        let trace = try #require(ParsedTrace(recorder.traceData()))
        let slice = try #require(trace.procedure("Waiting"))
        #expect(slice.status == "cancelled")
        #expect(slice.args["executed"] as? Bool == false)
        #expect(slice.errors == ["not needed"])
        let cancelled = trace.phase("i").filter { $0.name == "cancelled" }
        #expect(cancelled.map(\.tid) == [slice.tid])
        #expect(cancelled.first?.errors == ["not needed"])
        #expect(trace.procedure("Running")?.status == "finished")
        #expect(trace.viewerProblems == [])
    }

    @Test func aProcedureStillRunningIsWrittenAsUnfinished() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let running = ClosureProcedure("Running") { _ in
            started.signal()
            gate.wait()
        }
        queue.add(procedure: running)
        waitFor(started, "the procedure to start")
        let trace = try #require(ParsedTrace(recorder.traceData()))
        gate.signal()
        waitForAll(running)
        #expect(trace.procedure("Running")?.status == "unfinished")
        #expect(trace.otherNumber("unfinishedProcedures") == 1)
        #expect(trace.viewerProblems == [])
    }

    @Test func namesAreEscaped() throws {
        let name = "quote \" backslash \\ newline \n tab \t bell \u{7} café ✓"
        let trace = try #require(run([TestProcedure(name: name)]))
        #expect(trace.procedureSlices.map(\.name) == [name])
    }

    // MARK: - Flows

    @Test func dependenciesAreFlowsFromEachDependencyToItsDependent() throws {
        let first = TestProcedure(name: "First")
        let second = TestProcedure(name: "Second")
        let third = TestProcedure(name: "Third")
        second.addDependency(first)
        third.addDependency(second)
        third.addDependency(first)
        let trace = try #require(run([first, second, third]))
        #expect(trace.viewerProblems == [])
        let links = trace.links("dependency").map { "\($0.from ?? -1)→\($0.to ?? -1)" }
        let lane = { (name: String) in trace.lane(name) ?? -2 }
        #expect(
            Set(links) == [
                "\(lane("First"))→\(lane("Second"))", "\(lane("Second"))→\(lane("Third"))",
                "\(lane("First"))→\(lane("Third"))",
            ])
        #expect(links.count == 3)
        #expect(trace.flows("dependency").allSatisfy { $0.start.cat == "dependency" })
    }

    @Test func aDependentEnqueuedBeforeItsDependencyIsLinked() throws {
        let dependency = TestProcedure(name: "Dependency")
        let dependent = TestProcedure(name: "Dependent")
        dependent.addDependency(dependency)
        let trace = try #require(run([dependent, dependency]))
        #expect(trace.viewerProblems == [])
        #expect(trace.links("dependency").map(\.from) == [trace.lane("Dependency")])
        #expect(trace.links("dependency").map(\.to) == [trace.lane("Dependent")])
    }

    @Test func aDependentEnqueuedAfterItsDependencyFinishedIsLinked() throws {
        let dependency = TestProcedure(name: "Dependency")
        queue.add(procedure: dependency)
        waitForAll(dependency)
        let dependent = TestProcedure(name: "Dependent")
        dependent.addDependency(dependency)
        let trace = try #require(run([dependent]))
        #expect(trace.viewerProblems == [])
        #expect(trace.links("dependency").map(\.from) == [trace.lane("Dependency")])
    }

    @Test func aDependentEnqueuedLongAfterItsDependencyFinishedIsStillLinked() throws {
        // Hundreds of procedures finish in between: more than a recorder keeps recognising by address (256 per
        // shard, one shard for this budget). The dependency is recognised by its instrument instead.
        let recorder = TraceRecorder(name: "Small", maximumEventCount: 10_000)
        let queue = ProcedureQueue(name: "long")
        queue.addObserver(recorder)
        let dependency = TestProcedure(name: "Dependency")
        queue.add(procedure: dependency)
        waitForAll(dependency)
        let between = (0..<400).map { TestProcedure(name: "Between \($0)") }
        queue.add(procedures: between)
        waitForAll(between)
        let dependent = TestProcedure(name: "Dependent")
        dependent.addDependency(dependency)
        queue.add(procedure: dependent)
        waitForAll(dependent)
        waitUntilEmpty(queue)
        let trace = try #require(ParsedTrace(recorder.traceData()))
        #expect(trace.viewerProblems == [])
        #expect(trace.procedureSlices.count == 402)
        #expect(trace.links("dependency").map(\.from) == [trace.lane("Dependency")])
        #expect(trace.links("dependency").map(\.to) == [trace.lane("Dependent")])
    }

    @Test func aDependencyAddedWhileTheDependentWaitsIsLinked() throws {
        let gate = DispatchSemaphore(value: 0)
        let blocker = ClosureProcedure("Blocker") { _ in gate.wait() }
        let late = TestProcedure(name: "Late dependency")
        let dependent = TestProcedure(name: "Dependent")
        dependent.addDependency(blocker)
        queue.add(procedures: [blocker, dependent])
        dependent.addDependency(late)  // allowed while it waits for `blocker`
        queue.add(procedure: late)
        gate.signal()
        let trace = try #require(run([]))
        waitForAll(dependent)
        #expect(trace.viewerProblems == [])
        #expect(
            Set(trace.links("dependency").compactMap(\.from))
                == Set([trace.lane("Blocker"), trace.lane("Late dependency")].compactMap { $0 }))
    }

    @Test func aDependencyOutsideTheTraceIsNotDrawn() throws {
        let elsewhere = TestProcedure(name: "Elsewhere")
        ProcedureQueue().add(procedure: elsewhere)
        let dependent = TestProcedure(name: "Dependent")
        dependent.addDependency(elsewhere)
        let trace = try #require(run([dependent]))
        #expect(trace.procedureSlices.map(\.name) == ["Dependent"])
        #expect(trace.flows("dependency").isEmpty)
        #expect(trace.viewerProblems == [])
    }

    @Test func aGroupIsLinkedToEachOfItsChildrenFromTheMomentItAddedThem() throws {
        let children = [TestProcedure(name: "Child A"), TestProcedure(name: "Child B")]
        let group = GroupProcedure(operations: children)
        group.name = "Group"
        let trace = try #require(run([group]))
        #expect(trace.viewerProblems == [])
        #expect(trace.procedureSlices.count == 3)
        #expect(trace.links("child").map(\.from) == [trace.lane("Group"), trace.lane("Group")])
        // The arrows leave a mark on the group's lane, inside its slice, not the group's slice (whose end, where a
        // viewer draws an arrow from, is after the children ran).
        #expect(Set(trace.arrows("child").map(\.from)) == ["add Child A", "add Child B"])
        #expect(trace.marks.allSatisfy { $0.tid == trace.lane("Group") && $0.dur == 0 && $0.cat == "child" })
        #expect(
            Set(trace.links("child").compactMap(\.to))
                == Set([trace.lane("Child A"), trace.lane("Child B")].compactMap { $0 }))
        // The group's slice encloses its children's.
        let groupSlice = try #require(trace.procedure("Group"))
        for child in ["Child A", "Child B"] {
            let slice = try #require(trace.procedure(child))
            #expect(try #require(slice.beginNanoseconds) >= groupSlice.beginNanoseconds ?? .max)
            #expect(try #require(slice.endNanoseconds) <= groupSlice.endNanoseconds ?? -1)
        }
    }

    @Test func producedOperationsAreLinkedToTheirProducer() throws {
        let produced = TestProcedure(name: "Produced")
        let producer = TestProcedure(name: "Producer", produced: produced)
        let trace = try #require(run([producer]))
        waitForAll(produced)
        waitUntilEmpty(queue)
        let final = try #require(ParsedTrace(recorder.traceData()))
        #expect(final.viewerProblems == [])
        #expect(final.links("produced").map(\.from) == [final.lane("Producer")])
        #expect(final.links("produced").map(\.to) == [final.lane("Produced")])
        // Attached through its producer first, then seen by the queue: traced once, with the queue's name.
        #expect(final.procedureSlices.filter { $0.name == "Produced" }.count == 1)
        #expect(final.procedure("Produced")?.args["queue"] as? String == "recorded")
        _ = trace
    }

    // MARK: - Attaching

    @Test func aTraceObserverTracesOneProcedureAndTheProceduresItAdds() throws {
        let recorder = TraceRecorder()
        let children = [TestProcedure(name: "Child A"), TestProcedure(name: "Child B")]
        let group = GroupProcedure(operations: children)
        group.name = "Group"
        group.addObserver(TraceObserver(recorder: recorder))
        let other = TestProcedure(name: "Not traced")
        let queue = ProcedureQueue()
        queue.add(procedures: [group, other])
        waitForAll(group, other)
        let trace = try #require(ParsedTrace(recorder.traceData()))
        #expect(Set(trace.procedureSlices.map(\.name)) == ["Group", "Child A", "Child B"])
        #expect(trace.phase("i").filter { $0.name == "attached" }.count == 3)
        #expect(trace.procedureSlices.allSatisfy { $0.args["queue"] == nil })
        #expect(trace.viewerProblems == [])
    }

    @Test func aProcedureObservedTwiceIsTracedOnce() throws {
        let procedure = TestProcedure(name: "Twice")
        procedure.addObserver(TraceObserver(recorder: recorder))
        let trace = try #require(run([procedure]))
        #expect(trace.procedureSlices.map(\.name) == ["Twice"])
        #expect(trace.procedure("Twice")?.args["queue"] as? String == "recorded")
        #expect(trace.viewerProblems == [])
    }

    @Test func aTraceObserverAttachedWhileTheQueueTracesTheProcedureTracesNothingMore() throws {
        // Attached once it is executing on the queue's thread: attached before, the attach could make this
        // thread drain its events, start included, and block in its execute() waiting for the gate below.
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let running = ClosureProcedure("Running") { _ in
            started.signal()
            _ = gate.wait(timeout: .now() + hangTimeout)
        }
        queue.add(procedure: running)
        #expect(started.wait(timeout: .now() + hangTimeout) == .success)
        running.addObserver(TraceObserver(recorder: recorder))  // the recorder traces it already
        gate.signal()
        let trace = try #require(run([]))
        #expect(trace.procedureSlices.map(\.name) == ["Running"])
        #expect(trace.procedure("Running")?.args["queue"] as? String == "recorded")
        #expect(trace.viewerProblems == [])
    }

    @Test func twoRecordersOnOneQueueBothTraceEveryProcedure() throws {
        // The first recorder traces an independent procedure through its instrument hook; a procedure carries one
        // instrument, so the second recorder attaches an observer instead. Both traces are complete.
        let second = TraceRecorder(name: "Second")
        queue.addObserver(second)
        let procedures = [TestProcedure(name: "A"), TestProcedure(name: "B")]
        procedures[1].addDependency(procedures[0])
        let trace = try #require(run(procedures))
        let other = try #require(ParsedTrace(second.traceData()))
        for parsed in [trace, other] {
            #expect(Set(parsed.procedureSlices.map(\.name)) == ["A", "B"])
            #expect(
                parsed.procedureSlices.allSatisfy {
                    $0.status == "finished" && $0.args["queue"] as? String == "recorded"
                })
            #expect(parsed.links("dependency").map(\.from) == [parsed.lane("A")])
            #expect(parsed.viewerProblems == [])
        }
        withExtendedLifetime(second) {}
    }

    @Test func oneObserverAttachedToTwoProceduresTracesTheFirst() throws {
        let recorder = TraceRecorder()
        let observer = TraceObserver(recorder: recorder)
        let first = TestProcedure(name: "First")
        let second = TestProcedure(name: "Second")
        GlobalLogSettings.with(enabled: false) {
            first.addObserver(observer)
            second.addObserver(observer)
        }
        ProcedureQueue().add(procedures: [first, second])
        waitForAll(first, second)
        let trace = try #require(ParsedTrace(recorder.traceData()))
        #expect(trace.procedureSlices.map(\.name) == ["First"])
    }

    @Test func aRecorderIsReleasedOnceWhatItTracedHasFinishedOrGone() async {
        let leaks = LeakCheck()
        do {
            let recorder = TraceRecorder()
            let ran = TestProcedure(name: "Ran")
            let neverRun = TestProcedure(name: "Never run")
            leaks.track([recorder, ran, neverRun])
            ran.addObserver(TraceObserver(recorder: recorder))
            neverRun.addObserver(TraceObserver(recorder: recorder))
            ProcedureQueue().add(procedure: ran)
            await ran.waitUntilFinished()
        }
        #expect(await leaks.unreleased() == [])
    }

    // MARK: - Memory

    @Test func theEventBudgetKeepsTheMostRecentProceduresAndCountsTheRest() throws {
        // Each of these procedures writes 3 events (its lane's name, its slice, its enqueue instant); the process
        // name takes 1: a budget of 31 keeps the last 10.
        let recorder = TraceRecorder(maximumEventCount: 31)
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        queue.addObserver(recorder)
        let procedures = (0..<50).map { TestProcedure(name: "P\($0)") }
        queue.add(procedures: procedures)
        waitForAll(procedures)
        waitUntilEmpty(queue)
        let trace = try #require(ParsedTrace(recorder.traceData()))
        #expect(trace.events.count == 31)
        #expect(trace.procedureSlices.map(\.name) == (40..<50).map { "P\($0)" })
        #expect(trace.otherNumber("droppedProcedures") == 40)
        #expect(trace.otherNumber("droppedEvents") == 120)
        #expect(recorder.droppedEventCount == 120)
        #expect(trace.otherNumber("maximumEventCount") == 31)
        #expect(trace.viewerProblems == [])
    }

    @Test func aFlowWhoseDependencyWasDroppedIsLeftOut() throws {
        let recorder = TraceRecorder(maximumEventCount: 9)
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        queue.addObserver(recorder)
        let chain = (0..<6).map { TestProcedure(name: "Link \($0)") }
        for (previous, next) in zip(chain, chain.dropFirst()) { next.addDependency(previous) }
        queue.add(procedures: chain)
        waitForAll(chain)
        let trace = try #require(ParsedTrace(recorder.traceData()))
        // The last link: 3 events and one flow (2), and room for nothing older; its dependency is gone.
        #expect(trace.events.count <= 9)
        #expect(trace.procedureSlices.map(\.name) == ["Link 5"])
        #expect(trace.phase("s").isEmpty && trace.phase("f").isEmpty)
        #expect(trace.viewerProblems == [])
    }

    @Test func recordingKeepsNoProcedureAlive() async {
        let leaks = LeakCheck()
        do {
            let children = [TestProcedure(name: "Child A"), TestProcedure(name: "Child B")]
            let group = GroupProcedure(operations: children)
            let first = TestProcedure(name: "First")
            let produced = TestProcedure(name: "Produced")
            let producer = TestProcedure(name: "Producer", produced: produced)
            group.addDependency(first)
            producer.addDependency(group)
            leaks.track([group, first, producer, produced] + children)
            queue.add(procedures: [first, group, producer])
            await producer.waitUntilFinished()
            await produced.waitUntilFinished()
        }
        #expect(await leaks.unreleased() == [])
        _ = recorder.traceData()
    }

    // MARK: - Files

    @Test func writeTraceWritesTheSameTraceToAFile() throws {
        let procedure = TestProcedure(name: "Written")
        let trace = try #require(run([procedure]))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try recorder.writeTrace(to: url)
        let written = try #require(ParsedTrace(try Data(contentsOf: url)))
        #expect(written.events.count == trace.events.count)
        #expect(written.procedure("Written")?.ts == trace.procedure("Written")?.ts)
    }

    /// Counts every queue callback it hears.
    final class CountingQueueObserver: ProcedureQueueObserver {
        private let counts = PKMutex<[String: Int]>([:])
        var heard: [String: Int] { counts.withLock { $0 } }
        private func count(_ event: String) { counts.withLock { $0[event, default: 0] += 1 } }
        func procedureQueue(_ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?) {
            count("willAdd")
        }
        func procedureQueue(_ queue: ProcedureQueue, didAddProcedure procedure: Procedure, context: (any Sendable)?) {
            count("didAdd")
        }
        func procedureQueue(
            _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, withErrors errors: [any Error]
        ) { count("willFinish") }
        func procedureQueue(
            _ queue: ProcedureQueue, didFinishProcedure procedure: Procedure, withErrors errors: [any Error]
        ) { count("didFinish") }
    }

    /// The recorder names the one queue callback it implements; an observer added after it still hears them all.
    @Test func anotherQueueObserverStillHearsEveryCallback() throws {
        let observer = CountingQueueObserver()
        queue.addObserver(observer)
        let procedures = (0..<5).map { TestProcedure(name: "Heard \($0)") }
        let trace = try #require(run(procedures))
        #expect(trace.procedureSlices.count == 5)
        #expect(observer.heard == ["willAdd": 5, "didAdd": 5, "willFinish": 5, "didFinish": 5])
        withExtendedLifetime(observer) {}
    }
}

/// A clock whose `now` first runs a hook (once at a time): user code run wherever the framework reads the clock.
final class ReentrantClock: ProcedureClock {
    private let base = ManualClock(now: Date(timeIntervalSinceReferenceDate: 0))
    private struct State {
        var hook: (@Sendable () -> Void)?
        var running = false
        var runs = 0
    }
    private let state = PKMutex(State())

    func setHook(_ hook: (@Sendable () -> Void)?) { state.withLock { $0.hook = hook } }

    var hookRuns: Int { state.withLock { $0.runs } }

    var now: Date {
        let hook = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.running, let hook = state.hook else { return nil }
            state.running = true
            state.runs += 1
            return hook
        }
        if let hook {
            hook()
            state.withLock { $0.running = false }
        }
        return base.now
    }

    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        base.schedule(after: delay, action)
    }
}
