// Re-creates ProcedureKit's Tests/ProcedureKitTests/ProfilerTests.swift (ProcedureKit 5.x; the stored version's
// `XCTAssertProcedure…` calls are written with the 5.x `PKAssert…` names and its `add(observer:)` with 5.x's
// `addObserver(_:)`, since the old names are deprecated or absent here and warnings are errors).
//
// Changes besides imports:
// - `TestableProfileReporter` is `final` and `Sendable` (reporters are `Sendable` in Swift 6); its result stays
//   behind a `Protector`, as in ProcedureKit, and it also signals `didReport`, which each test waits for after
//   `wait(for:)`: the profiler reports from the last DidFinish it waits for (the procedure's or a child's), which
//   `wait(for:)` does not wait for, so reading the result at once raced with the report.
// - `now` is `Date().timeIntervalSinceReferenceDate` instead of `CFAbsoluteTimeGetCurrent()` (the same value;
//   CoreFoundation's function is not part of swift-corelibs-foundation's API).
// - test__profile_group_operation: `group.log.severity = .notice` is `.info`: 5.x's severities (and PKCore's) have
//   no `notice`.
//
// Left out: none.

import Foundation
import PKObservers
import PKTesting
import XCTest

final class TestableProfileReporter: ProcedureProfilerReporter {
    var didProfileResult: ProfileResult? {
        get { return _didProfileResult.access }
        set { _didProfileResult.overwrite(with: newValue) }
    }

    let _didProfileResult = Protector<ProfileResult?>(.none)
    let didReport = DispatchSemaphore(value: 0)

    func finishedProfiling(withResult result: ProfileResult) {
        didProfileResult = result
        didReport.signal()
    }
}

final class ProfilerTests: ProcedureKitTestCase {

    var now: TimeInterval!
    var reporter: TestableProfileReporter!
    var profiler: ProcedureProfiler!

    override func setUp() {
        super.setUp()
        now = Date().timeIntervalSinceReferenceDate
        reporter = TestableProfileReporter()
        profiler = ProcedureProfiler(reporter)
    }

    override func tearDown() {
        profiler = nil
        reporter = nil
        super.tearDown()
    }

    func validateProfileResult(result: ProfileResult, after: TimeInterval) {
        XCTAssertGreaterThanOrEqual(result.created, after)
        XCTAssertGreaterThan(result.attached, 0)
        XCTAssertGreaterThanOrEqual(result.started, result.attached)
        if let cancelled = result.cancelled {
            XCTAssertGreaterThanOrEqual(cancelled, result.attached)
            XCTAssertGreaterThanOrEqual(result.finished ?? 0.0, cancelled)
        } else if let finished = result.finished {
            XCTAssertGreaterThanOrEqual(finished, result.started)
        } else {
            XCTFail("Profile result neither cancelled nor finished!")
            return
        }
    }

    func test__profile_simple_operation_which_finishes() {
        procedure.addObserver(profiler)

        wait(for: procedure)
        XCTAssertSignalled(reporter.didReport)
        guard let result = reporter.didProfileResult else {
            XCTFail("Reporter did not receive profile result.")
            return
        }

        validateProfileResult(result: result, after: now)
        PKAssertProcedureFinished(procedure)
    }

    func test__profile_simple_operation_which_cancels() {

        procedure.addObserver(
            WillExecuteObserver<TestProcedure> { op, _ in
                op.cancel()
            })
        procedure.addObserver(profiler)
        wait(for: procedure)
        XCTAssertSignalled(reporter.didReport)

        guard let result = reporter.didProfileResult else {
            XCTFail("Reporter did not receive profile result.")
            return
        }

        validateProfileResult(result: result, after: now)
        PKAssertProcedureCancelled(procedure)
    }

    func test__profile_operation__which_produces_child() {

        let child = TestProcedure()

        procedure = TestProcedure(produced: child)
        procedure.addObserver(profiler)

        wait(for: procedure)
        XCTAssertSignalled(reporter.didReport)

        guard let result = reporter.didProfileResult else {
            XCTFail("Reporter did not receive profile result.")
            return
        }

        validateProfileResult(result: result, after: now)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(result.children.count, 1)
        if let childResult = result.children.first {
            validateProfileResult(result: childResult, after: now)
        }
    }

    func test__profile_group_operation() {
        let group = GroupProcedure(operations: [TestProcedure(), TestProcedure()])
        group.log.severity = .info
        group.addObserver(profiler)

        wait(for: group)
        XCTAssertSignalled(reporter.didReport)

        guard let result = reporter.didProfileResult else {
            XCTFail("Reporter did not receive profile result.")
            return
        }

        validateProfileResult(result: result, after: now)
        PKAssertProcedureFinished(group)

        XCTAssertEqual(result.children.count, 2)
        for child in result.children {
            validateProfileResult(result: child, after: now)
        }
    }
}
