import Foundation
import Testing

// Swift Testing front ends. Each records one issue per failure found by the matching ``ProcedureCheck``, at the
// caller's source location. Use these in `@Test` functions; in XCTest suites use the `PKAssert…` functions.

private func report(_ failures: [String], at sourceLocation: SourceLocation) {
    for failure in failures {
        Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
    }
}

/// Swift Testing: records an issue unless `procedure` finished with (or without) errors and was (or was not)
/// cancelled, as ``ProcedureCheck/finished(_:withErrors:cancelling:)`` checks.
public func PKExpectProcedureFinished(
    _ procedure: Procedure, withErrors: Bool = false, cancelling: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    report(ProcedureCheck.finished(procedure, withErrors: withErrors, cancelling: cancelling), at: sourceLocation)
}

/// Swift Testing: records an issue unless `procedure` finished cancelled, with (or without) errors.
public func PKExpectProcedureCancelled(
    _ procedure: Procedure, withErrors: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
) {
    report(ProcedureCheck.cancelled(procedure, withErrors: withErrors), at: sourceLocation)
}

/// Swift Testing: records an issue unless `procedure` finished, not cancelled, with exactly `count` errors.
public func PKExpectProcedureFinishedWithErrors(
    _ procedure: Procedure, count: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    report(ProcedureCheck.finishedWithErrors(procedure, count: count), at: sourceLocation)
}

/// Swift Testing: records an issue unless `procedure` finished with a first error of `expected`'s type, equal
/// to it.
public func PKExpectProcedureError<E: Error & Equatable>(
    _ procedure: Procedure, equals expected: E, sourceLocation: SourceLocation = #_sourceLocation
) {
    report(ProcedureCheck.error(procedure, equals: expected), at: sourceLocation)
}

/// Swift Testing: records an issue unless `procedure` finished, not cancelled, with a first error equal to
/// `expected`.
public func PKExpectProcedureFinishedWithError<E: Error & Equatable>(
    _ procedure: Procedure, _ expected: E, sourceLocation: SourceLocation = #_sourceLocation
) {
    report(ProcedureCheck.finishedWithError(procedure, expected), at: sourceLocation)
}

/// Swift Testing: records an issue unless `procedure` finished cancelled, with a first error equal to `expected`.
public func PKExpectProcedureCancelledWithError<E: Error & Equatable>(
    _ procedure: Procedure, _ expected: E, sourceLocation: SourceLocation = #_sourceLocation
) {
    report(ProcedureCheck.cancelledWithError(procedure, expected), at: sourceLocation)
}

/// Swift Testing: records an issue unless `result` is satisfied.
public func PKExpectConditionSatisfied(_ result: ConditionResult, sourceLocation: SourceLocation = #_sourceLocation) {
    report(ProcedureCheck.conditionSatisfied(result), at: sourceLocation)
}

/// Swift Testing: records an issue unless `result` is a failure with an error equal to `expected`.
public func PKExpectConditionFailed<E: Error & Equatable>(
    _ result: ConditionResult, failedWithError expected: E, sourceLocation: SourceLocation = #_sourceLocation
) {
    report(ProcedureCheck.conditionFailed(result, failedWithError: expected), at: sourceLocation)
}

/// Swift Testing: records an issue unless `group` has no errors (`count` 0) or exactly `count` errors.
public func PKExpectGroupErrors(_ group: GroupProcedure, count: Int, sourceLocation: SourceLocation = #_sourceLocation)
{
    report(ProcedureCheck.groupErrors(group, count: count), at: sourceLocation)
}

/// Swift Testing: records an issue unless `procedure` finished cleanly with output `expected`.
public func PKExpectProcedureOutput<P: OutputProcedure>(
    _ procedure: P, _ expected: P.Output, sourceLocation: SourceLocation = #_sourceLocation
) where P.Output: Equatable {
    report(ProcedureCheck.output(procedure, expected), at: sourceLocation)
}

/// Swift Testing: records an issue for each overlap of one procedure's callbacks that `recorder` detected.
public func PKExpectProcedureNoConcurrentEvents(
    _ recorder: EventRecorder, sourceLocation: SourceLocation = #_sourceLocation
) {
    report(ProcedureCheck.noConcurrentEvents(recorder), at: sourceLocation)
}

/// Swift Testing: records an issue for each object tracked by `leaks` still alive after `timeout` seconds.
public func PKExpectReleased(
    _ leaks: LeakCheck, timeout: TimeInterval = 5, sourceLocation: SourceLocation = #_sourceLocation
) async {
    let failures = await leaks.unreleased(timeout: timeout).map { "\($0) was not released" }
    report(failures, at: sourceLocation)
}
