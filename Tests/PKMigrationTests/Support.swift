import Foundation
import PKTesting
import XCTest

// Small fixtures shared by the migrated suites. They play the part of the throwaway subclasses ProcedureKit's own
// tests declared next to each test, restated for Swift 6 (`@unchecked Sendable`, state behind a lock).

/// A procedure whose `execute()` runs a closure given the procedure; the closure decides when to finish it.
///
/// Records whether it executed, and whether `procedureDidCancel` ran and if the procedure had finished then.
final class ExecutingProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `body` is immutable and Sendable; the records live in `record`, a Protector.

    struct Record: Sendable {
        var executeCount = 0
        var didCancelCalls = 0
        var finishedWhenDidCancelRan: Bool?
    }

    private let body: @Sendable (ExecutingProcedure) -> Void
    private let record = Protector(Record())

    init(
        name: String = "ExecutingProcedure", disableAutomaticFinishing: Bool = false,
        execute body: @escaping @Sendable (ExecutingProcedure) -> Void = { $0.finish() }
    ) {
        self.body = body
        super.init(disableAutomaticFinishing: disableAutomaticFinishing)
        self.name = name
    }

    var didExecute: Bool { record.read { $0.executeCount > 0 } }
    var procedureDidCancelCalled: Bool { record.read { $0.didCancelCalls > 0 } }
    var finishedWhenDidCancelRan: Bool? { record.read { $0.finishedWhenDidCancelRan } }

    override func execute() {
        record.write { $0.executeCount += 1 }
        body(self)
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        let finished = isFinished
        record.write {
            $0.didCancelCalls += 1
            $0.finishedWhenDidCancelRan = finished
        }
    }
}

/// A procedure that executes and then waits: it finishes only when told to (`finish()`) or when cancelled.
func makeWaitingProcedure(name: String = "WaitingProcedure", started: DispatchSemaphore? = nil)
    -> ExecutingProcedure
{
    let procedure = ExecutingProcedure(name: name) { _ in started?.signal() }
    procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
    return procedure
}

/// ProcedureKit's `NumbersProcedure`: outputs 0…9, or fails with `error`.
func makeNumbersProcedure(error: TestError? = nil) -> ResultProcedure<[Int]> {
    let numbers = ResultProcedure<[Int]> {
        if let error { throw error }
        return Array(0...9)
    }
    numbers.name = "Numbers"
    return numbers
}

/// A counter shared with `@Sendable` closures.
final class Counter: Sendable {
    private let value = Protector(0)

    var count: Int { value.access }

    func increment() {
        value.advance(by: 1)
    }
}

/// A flag shared with `@Sendable` closures.
final class Flag: Sendable {
    private let value = Protector(false)

    var isSet: Bool { value.access }

    func set() {
        value.overwrite(with: true)
    }
}

extension XCTestCase {
    /// Fails the test unless `semaphore` is signalled within `timeout` seconds.
    func XCTAssertSignalled(
        _ semaphore: DispatchSemaphore, timeout: TimeInterval = 3, _ message: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let result = semaphore.wait(timeout: .now() + timeout)
        XCTAssertEqual(result, .success, "not signalled within \(timeout) s. \(message)", file: file, line: line)
    }
}

extension ProcedureKitTestCase {
    /// `wait(forAll:)`, also waiting for each procedure's DidFinish observers (and so for everything in its
    /// DidFinish phase, such as `procedureDidFinish`); `wait(for:)` alone returns once they have finished.
    func waitIncludingDidFinish(forAll procedures: [Procedure], withTimeout timeout: TimeInterval = 3) {
        for procedure in procedures { addExpectationCompletionBlockTo(procedure: procedure) }
        wait(forAll: procedures, withTimeout: timeout)
    }
}
