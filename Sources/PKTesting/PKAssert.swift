import Foundation
import XCTest

// XCTest front ends, with ProcedureKit's names. Each calls `XCTFail` once per failure found by the matching
// ``ProcedureCheck``, at the caller's file and line. Use these in XCTest suites (no subclass needed); in
// Swift Testing `@Test` functions use the `PKExpect…` functions.

private func report(_ failures: [String], file: StaticString, line: UInt) {
    for failure in failures {
        XCTFail(failure, file: file, line: line)
    }
}

/// XCTest: fails unless `procedure` finished with (or without) errors and was (or was not) cancelled, as
/// ``ProcedureCheck/finished(_:withErrors:cancelling:)`` checks.
public func PKAssertProcedureFinished(
    _ procedure: Procedure, withErrors: Bool = false, cancelling: Bool = false,
    file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.finished(procedure, withErrors: withErrors, cancelling: cancelling), file: file, line: line)
}

/// XCTest: fails unless `procedure` finished cancelled, with (or without) errors.
public func PKAssertProcedureCancelled(
    _ procedure: Procedure, withErrors: Bool = false, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.cancelled(procedure, withErrors: withErrors), file: file, line: line)
}

/// XCTest: fails unless `procedure` finished, not cancelled, with exactly `count` errors.
public func PKAssertProcedureFinishedWithErrors(
    _ procedure: Procedure, count: Int, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.finishedWithErrors(procedure, count: count), file: file, line: line)
}

/// XCTest: fails unless `procedure` finished with a first error of `expected`'s type, equal to it.
public func PKAssertProcedureError<E: Error & Equatable>(
    _ procedure: Procedure, equals expected: E, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.error(procedure, equals: expected), file: file, line: line)
}

/// XCTest: fails unless `procedure` finished with a first error equal to `expected`: ProcedureKit's positional
/// spelling of ``PKAssertProcedureError(_:equals:file:line:)``.
public func PKAssertProcedureError<E: Error & Equatable>(
    _ procedure: Procedure, _ expected: E, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.error(procedure, equals: expected), file: file, line: line)
}

/// XCTest: fails unless `procedure` finished, not cancelled, with a first error equal to `expected`.
public func PKAssertProcedureFinishedWithError<E: Error & Equatable>(
    _ procedure: Procedure, _ expected: E, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.finishedWithError(procedure, expected), file: file, line: line)
}

/// XCTest: fails unless `procedure` finished cancelled, with a first error equal to `expected`.
public func PKAssertProcedureCancelledWithError<E: Error & Equatable>(
    _ procedure: Procedure, _ expected: E, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.cancelledWithError(procedure, expected), file: file, line: line)
}

/// XCTest: fails unless `result` is satisfied.
public func PKAssertConditionSatisfied(
    _ result: ConditionResult, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.conditionSatisfied(result), file: file, line: line)
}

/// XCTest: fails unless `result` is a failure with an error equal to `expected`.
public func PKAssertConditionFailed<E: Error & Equatable>(
    _ result: ConditionResult, failedWithError expected: E, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.conditionFailed(result, failedWithError: expected), file: file, line: line)
}

/// XCTest: fails unless `group` has no errors (`count` 0) or exactly `count` errors.
public func PKAssertGroupErrors(
    _ group: GroupProcedure, count: Int, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.groupErrors(group, count: count), file: file, line: line)
}

/// XCTest: fails unless `group` has errors, and those of `expected`'s type include it (or, with `doesNot`, do
/// not).
public func PKAssertGroupErrors<E: Error & Equatable>(
    _ group: GroupProcedure, doesNot: Bool = false, contain expected: E, file: StaticString = #filePath,
    line: UInt = #line
) {
    report(ProcedureCheck.groupErrors(group, doesNot: doesNot, contain: expected), file: file, line: line)
}

/// XCTest: fails unless `writer` received the log message `message`.
public func PKAssertLogContainsMessage(
    _ writer: TestableLogWriter, _ message: String, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.logContains(writer, message: message), file: file, line: line)
}

/// XCTest: fails unless `procedure` finished cleanly with output `expected`.
public func PKAssertProcedureOutput<P: OutputProcedure>(
    _ procedure: P, _ expected: P.Output, file: StaticString = #filePath, line: UInt = #line
) where P.Output: Equatable {
    report(ProcedureCheck.output(procedure, expected), file: file, line: line)
}

/// XCTest: fails once for each overlap of one procedure's callbacks that `recorder` detected.
public func PKAssertProcedureNoConcurrentEvents(
    _ recorder: EventRecorder, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.noConcurrentEvents(recorder), file: file, line: line)
}

/// XCTest: fails once for each object tracked by `leaks` still alive after `timeout` seconds (blocking).
public func PKAssertReleased(
    _ leaks: LeakCheck, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line
) {
    report(ProcedureCheck.released(leaks, timeout: timeout), file: file, line: line)
}
