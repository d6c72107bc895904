import Foundation
import PKCore

/// A condition for tests whose result comes from a closure: returning a `ConditionResult`, or throwing (a
/// failure with the thrown error). ProcedureKit's `TestCondition`.
///
/// ```swift
/// procedure.add(condition: TestCondition { .success(false) })   // ignored: the procedure does not execute
/// ```
///
/// The closure runs on the framework's evaluation thread, once per evaluation. Produced dependencies given at
/// init are run by the framework before it.
open class TestCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `block` is immutable and Sendable; the superclass guards its state with its PKMutex.
    private let block: @Sendable () throws -> ConditionResult

    /// Creates a condition named `name` that produces `producedDependencies` and decides with `evaluate`.
    public init(
        name: String = "TestCondition", producedDependencies: [Operation] = [],
        evaluate: @escaping @Sendable () throws -> ConditionResult
    ) {
        block = evaluate
        super.init()
        self.name = name
        for dependency in producedDependencies { produceDependency(dependency) }
    }

    /// Calls the closure and completes with its result (or its thrown error as a failure).
    open override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        do {
            completion(try block())
        } catch {
            completion(.failure(error))
        }
    }
}

/// A condition for tests whose closure completes later, from any thread: ProcedureKit's `AsyncTestCondition`.
open class AsyncTestCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `block` is immutable and Sendable; the superclass guards its state with its PKMutex.

    /// The closure: it must call the completion handler once.
    public typealias EvaluateBlock = @Sendable (@escaping @Sendable (ConditionResult) -> Void) -> Void

    private let block: EvaluateBlock

    /// Creates a condition named `name` that produces `producedDependencies` and decides with `evaluate`.
    public init(
        name: String = "TestCondition", producedDependencies: [Operation] = [], evaluate: @escaping EvaluateBlock
    ) {
        block = evaluate
        super.init()
        self.name = name
        for dependency in producedDependencies { produceDependency(dependency) }
    }

    /// Calls the closure with the completion.
    open override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        block(completion)
    }
}
