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
