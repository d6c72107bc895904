import Dispatch
import PKConditions
import PKTesting
import Testing

/// The §4.3 combination rules, through `ConditionEvaluator.combine` directly and end to end.
struct CombinationTests {

    /// A result in a table: satisfied, ignored, or a failure with a tag naming its error.
    enum Outcome: Sendable, Hashable, CustomStringConvertible {
        case satisfied, ignored
        case failed(String)
        case aggregate([String])

        var result: ConditionResult {
            switch self {
            case .satisfied: .success(true)
            case .ignored: .success(false)
            case .failed(let tag): .failure(ProcedureKitError.conditionFailed(tag))
            case .aggregate: preconditionFailure("only expected results are aggregates")
            }
        }

        init(_ result: ConditionResult) {
            switch result {
            case .success(true): self = .satisfied
            case .success(false): self = .ignored
            case .failure(let error):
                let error = error as? ProcedureKitError
                if error?.context == .conditionsFailed {
                    self = .aggregate(error?.underlyingErrors.map { Outcome.tag(of: $0) } ?? [])
                } else {
                    self = .failed(error.map { Outcome.tag(of: $0) } ?? "?")
                }
            }
        }

        private static func tag(of error: any Error) -> String {
            guard case .conditionFailed(let tag)? = (error as? ProcedureKitError)?.context else { return "?" }
            return tag
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
        ([.satisfied, .satisfied], .satisfied),
        ([.satisfied, .ignored], .satisfied),
        ([.ignored, .satisfied], .satisfied),
        ([.ignored, .ignored], .ignored),
        ([.satisfied, .failed("A")], .failed("A")),
        ([.failed("A"), .satisfied], .failed("A")),
        ([.ignored, .failed("A")], .failed("A")),
        ([.failed("A"), .ignored], .failed("A")),
        ([.failed("A"), .failed("B")], .aggregate(["A", "B"])),
        ([.failed("A"), .satisfied, .failed("B"), .failed("C")], .aggregate(["A", "B", "C"])),
    ]

    @Test(arguments: table)
    func combineFoldsResultsInOrder(results: [Outcome], expected: Outcome) {
        #expect(Outcome(ConditionEvaluator.combine(results.map(\.result))) == expected)
    }

    @Test func severalTopLevelFailuresCancelWithTheFirst() {
        let procedure = TestProcedure()
        procedure.add(condition: FalseCondition(name: "First"))
        procedure.add(condition: FalseCondition(name: "Second"))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.errors.count == 1)
        #expect(procedure.kitError?.context == .conditionFailed(condition: "First"))
    }

    @Test func ignoredPlusSatisfiedAtTopLevelExecutes() {
        let procedure = TestProcedure()
        procedure.add(condition: BlockCondition { false })
        procedure.add(condition: TrueCondition())
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }

    @Test func nestedCompoundsCombineLikeTheTable() {
        // (ignored && true) || (false && true) → satisfied
        let procedure = TestProcedure()
        procedure.add(
            condition: (BlockCondition { false } && TrueCondition()) || (FalseCondition() && TrueCondition()))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
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
        #expect(result.withLock { $0 }.map(Outcome.init) == .satisfied)
    }
}
