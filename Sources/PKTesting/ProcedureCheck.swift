import Foundation

/// The checks behind every `PKExpect…` and `PKAssert…` assertion, as pure functions that return failure
/// messages (empty when the check passes).
///
/// Use these directly to build your own assertions or to report failures through another test framework.
public enum ProcedureCheck {

    /// Checks that `procedure` has finished, whether it has errors, and whether it was cancelled.
    ///
    /// - Parameters:
    ///   - procedure: The procedure to check.
    ///   - withErrors: `true` to require at least one error, `false` to require none.
    ///   - cancelling: `true` to require that it was cancelled, `false` to require that it was not.
    public static func finished(
        _ procedure: Procedure, withErrors: Bool = false, cancelling: Bool = false
    ) -> [String] {
        var failures: [String] = []
        let name = procedure.procedureName
        if !procedure.isFinished {
            failures.append("\(name) did not finish (status \(procedure.status))")
        }
        let errors = procedure.errors
        if withErrors && errors.isEmpty {
            failures.append("\(name) finished without errors; expected errors")
        } else if !withErrors && !errors.isEmpty {
            failures.append("\(name) has errors: \(errors); expected none")
        }
        if cancelling && !procedure.isCancelled {
            failures.append("\(name) was not cancelled; expected it to be")
        } else if !cancelling && procedure.isCancelled {
            failures.append("\(name) was cancelled; expected it not to be")
        }
        return failures
    }

    /// Checks that `procedure` finished cancelled, with or without errors.
    public static func cancelled(_ procedure: Procedure, withErrors: Bool = false) -> [String] {
        finished(procedure, withErrors: withErrors, cancelling: true)
    }

    /// Checks that `procedure` finished, not cancelled, with exactly `count` errors.
    public static func finishedWithErrors(_ procedure: Procedure, count: Int) -> [String] {
        var failures = finished(procedure, withErrors: count > 0, cancelling: false)
        let actual = procedure.errors.count
        if actual != count {
            failures.append("\(procedure.procedureName) has \(actual) error(s); expected \(count)")
        }
        return failures
    }

    /// Checks that `procedure` finished and that its first error is of `expected`'s type and equal to it.
    public static func error<E: Error & Equatable>(_ procedure: Procedure, equals expected: E) -> [String] {
        var failures: [String] = []
        let name = procedure.procedureName
        if !procedure.isFinished {
            failures.append("\(name) did not finish (status \(procedure.status))")
        }
        guard let actual = procedure.error else {
            failures.append("\(name) has no error; expected \(expected)")
            return failures
        }
        guard let typed = actual as? E else {
            failures.append("\(name)'s error \(actual) is a \(type(of: actual)), not a \(E.self)")
            return failures
        }
        if typed != expected {
            failures.append("\(name)'s error \(typed) is not equal to \(expected)")
        }
        return failures
    }

    /// Checks that `procedure` finished, not cancelled, with a first error of `expected`'s type equal to it
    /// (ProcedureKit's `PKAssertProcedureFinishedWithError`).
    public static func finishedWithError<E: Error & Equatable>(_ procedure: Procedure, _ expected: E) -> [String] {
        finished(procedure, withErrors: true)
            + error(procedure, equals: expected).filter { !$0.contains("did not finish") }
    }

    /// Checks that `procedure` finished cancelled, with a first error of `expected`'s type equal to it
    /// (ProcedureKit's `PKAssertProcedureCancelledWithError`).
    public static func cancelledWithError<E: Error & Equatable>(_ procedure: Procedure, _ expected: E) -> [String] {
        cancelled(procedure, withErrors: true)
            + error(procedure, equals: expected).filter { !$0.contains("did not finish") }
    }

    /// Checks that a condition result is satisfied (`.success(true)`).
    public static func conditionSatisfied(_ result: ConditionResult) -> [String] {
        if case .success(true) = result { return [] }
        return ["condition result \(result) is not satisfied"]
    }

    /// Checks that a condition result is a failure whose error is of `expected`'s type and equal to it.
    public static func conditionFailed<E: Error & Equatable>(_ result: ConditionResult, failedWithError expected: E)
        -> [String]
    {
        guard case .failure(let error) = result else { return ["condition result \(result) is not a failure"] }
        guard let typed = error as? E else { return ["condition error \(error) is not a \(E.self)"] }
        return typed == expected ? [] : ["condition error \(typed) is not equal to \(expected)"]
    }

    /// Checks a group's errors: none when `count` is 0, otherwise exactly `count`.
    ///
    /// A group collects every child's errors (ProcedureKit's group kept one and its test helper counted the errors
    /// of its children instead; a finished child is released here, so the group's own list is what is counted).
    public static func groupErrors(_ group: GroupProcedure, count: Int) -> [String] {
        let actual = group.errors.count
        guard actual != count else { return [] }
        return ["\(group.procedureName) has \(actual) error(s); expected \(count)"]
    }

    /// Checks that a group has errors and that those of type `E` include (or, with `doesNot`, exclude)
    /// `expected`.
    public static func groupErrors<E: Error & Equatable>(
        _ group: GroupProcedure, doesNot: Bool = false, contain expected: E
    ) -> [String] {
        let errors = group.errors
        guard !errors.isEmpty else { return ["\(group.procedureName) has no errors"] }
        let typed = errors.compactMap { $0 as? E }
        if doesNot {
            return typed.contains(expected) ? ["\(group.procedureName)'s errors contain \(expected)"] : []
        }
        return typed.contains(expected) ? [] : ["\(group.procedureName)'s errors \(errors) do not contain \(expected)"]
    }

    /// Checks that `writer` received a message equal to `message`.
    public static func logContains(_ writer: TestableLogWriter, message: String) -> [String] {
        writer.messages.contains(message) ? [] : ["no log message \"\(message)\" among \(writer.messages)"]
    }

    /// Checks that `procedure` finished cleanly (not cancelled, no errors) with output `expected`.
    public static func output<P: OutputProcedure>(_ procedure: P, _ expected: P.Output) -> [String]
    where P.Output: Equatable {
        var failures = finished(procedure)
        switch procedure.output {
        case .pending:
            failures.append("\(procedure.procedureName)'s output is still pending; expected \(expected)")
        case .ready(.failure(let error)):
            failures.append("\(procedure.procedureName)'s output is the failure \(error); expected \(expected)")
        case .ready(.success(let value)):
            if value != expected {
                failures.append("\(procedure.procedureName)'s output is \(value); expected \(expected)")
            }
        }
        return failures
    }

    /// Checks that no two callbacks of one procedure overlapped while `recorder` watched.
    public static func noConcurrentEvents(_ recorder: EventRecorder) -> [String] {
        recorder.overlaps
    }

    /// Checks that every object tracked by `leaks` is released within `timeout` seconds (blocking).
    public static func released(_ leaks: LeakCheck, timeout: TimeInterval = 5) -> [String] {
        leaks.waitUntilReleased(timeout: timeout).map { "\($0) was not released" }
    }
}
