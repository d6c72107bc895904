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
