import Dispatch
import PKConditions
import PKTesting
import Testing

/// The combination rules, through `ConditionEvaluator.combine` directly and end to end: any failure fails, else any
/// ignored result ignores, else satisfied.
struct CombinationTests {

    /// A failure carrying a tag, to tell failures apart in the tables.
    struct TaggedError: Error, Equatable {
        let tag: String
    }

    /// A result in a table: satisfied, ignored, or a failure with a tag naming its error.
    enum Outcome: Sendable, Hashable, CustomStringConvertible {
        case satisfied, ignored
        case failed(String)
        case aggregate([String])

        static let singles: [Outcome] = [.satisfied, .ignored, .failed("A")]

        var result: ConditionResult {
            switch self {
            case .satisfied: .success(true)
            case .ignored: .success(false)
            case .failed(let tag): .failure(TaggedError(tag: tag))
            case .aggregate: preconditionFailure("only expected results are aggregates")
            }
        }

        init(_ result: ConditionResult) {
            switch result {
            case .success(true): self = .satisfied
            case .success(false): self = .ignored
            case .failure(let error as ProcedureKitError.FailedConditions):
                self = .aggregate(error.errors.map { ($0 as? TaggedError)?.tag ?? "?" })
            case .failure(let error):
                self = .failed((error as? TaggedError)?.tag ?? "?")
            }
        }

        var description: String {
            switch self {
            case .satisfied: "satisfied"
            case .ignored: "ignored"
            case .failed(let tag): "failed(\(tag))"
            case .aggregate(let tags): "aggregate(\(tags))"
            }
        }
    }

    static let table: [([Outcome], Outcome)] = [
        ([], .ignored),
        ([.satisfied], .satisfied),
        ([.ignored], .ignored),
        ([.failed("A")], .failed("A")),
        ([.failed("A"), .failed("B")], .aggregate(["A", "B"])),
        ([.failed("A"), .satisfied, .failed("B"), .failed("C")], .aggregate(["A", "B", "C"])),
        ([.satisfied, .satisfied, .ignored], .ignored),
        ([.ignored, .satisfied, .failed("A")], .failed("A")),
    ]

    @Test(arguments: table)
    func combineFoldsResults(results: [Outcome], expected: Outcome) {
        #expect(Outcome(ConditionEvaluator.combine(results.map(\.result))) == expected)
    }

    /// Every ordered pair: a failure wins, then an ignored result, and only two satisfied results are satisfied.
    @Test(arguments: Outcome.singles, Outcome.singles)
    func everyPairCombinesByPrecedence(first: Outcome, second: Outcome) {
        let expected: Outcome
        switch (first, second) {
        case (.failed, .failed): expected = .aggregate(["A", "A"])
        case (.failed, _): expected = first
        case (_, .failed): expected = second
        case (.ignored, _), (_, .ignored): expected = .ignored
        default: expected = .satisfied
        }
        #expect(Outcome(ConditionEvaluator.combine([first.result, second.result])) == expected)
    }

    /// The same pairs as two top-level conditions of a real procedure: it executes only when both are satisfied.
    @Test(arguments: Outcome.singles, Outcome.singles)
    func aProcedureExecutesOnlyWhenEveryConditionIsSatisfied(first: Outcome, second: Outcome) {
        let procedure = TestProcedure()
        procedure.add(condition: RecordingCondition(result: first.result))
        procedure.add(condition: RecordingCondition(result: second.result))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        let bothSatisfied = first == .satisfied && second == .satisfied
        #expect(procedure.didExecute == bothSatisfied)
        if bothSatisfied {
            PKExpectProcedureFinished(procedure)
        } else {
            let failed = first != .ignored && first != .satisfied || second != .ignored && second != .satisfied
            PKExpectProcedureCancelled(procedure, withErrors: failed)
        }
    }

    @Test func anIgnoredBlockConditionIsNotOutweighedByMutualExclusion() {
        // Issue F1: `BlockCondition { false }` plus `MutuallyExclusive` (always satisfied) used to execute.
        let procedure = TestProcedure()
        procedure.add(condition: BlockCondition { false })
        procedure.add(condition: MutuallyExclusive<CombinationTests>())
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func severalTopLevelFailuresCancelWithTheFirst() {
        let procedure = TestProcedure()
        procedure.add(condition: FalseCondition(name: "First"))
        procedure.add(condition: FalseCondition(name: "Second"))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.errors.count == 1)
        #expect(procedure.errors.first is ProcedureKitError.FalseCondition)
    }

    @Test func ignoredPlusSatisfiedAtTopLevelDoesNotExecute() {
        let procedure = TestProcedure()
        procedure.add(condition: BlockCondition { false })
        procedure.add(condition: TrueCondition())
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func nestedCompoundsCombineLikeTheTable() {
        // (ignored && true) || (false && true) → ignored || failed → failed
        let procedure = TestProcedure()
        procedure.add(
            condition: (BlockCondition { false } && TrueCondition()) || (FalseCondition() && TrueCondition()))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.errors.first is ProcedureKitError.FalseCondition)
        // (ignored && true) || true → satisfied
        let second = TestProcedure()
        second.add(condition: (BlockCondition { false } && TrueCondition()) || TrueCondition())
        ProcedureQueue().add(procedure: second)
        waitForAll(second)
        #expect(second.didExecute)
    }

    @Test func nestedEvaluatorCombinesLikeTheTopLevel() {
        let evaluator = ConditionEvaluator(conditions: [BlockCondition { false }, TrueCondition()], mode: .all)
        let result = PKMutex<ConditionResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        evaluator.evaluate(for: TestProcedure()) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        waitFor(done, "the evaluator to complete")
        #expect(result.withLock { $0 }.map(Outcome.init) == .ignored)
    }
}
