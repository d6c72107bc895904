import Foundation
import PKCore
import Synchronization
import XCTest

/// An XCTest base class with ProcedureKit's test helpers, so that a suite written for TestingProcedureKit ports
/// with an import change.
///
/// ```swift
/// final class MyTests: ProcedureKitTestCase {
///     func testProcedureFinishes() {
///         wait(for: procedure)
///         PKAssertProcedureFinished(procedure)
///     }
/// }
/// ```
///
/// Each test gets a fresh ``queue`` with a ``delegate`` already installed, and a ``procedure``. The tear-down
/// cancels ``procedure`` and everything on the queue, waits for the queue to drain (failing the test after 10 s
/// instead of hanging), restores the global log settings found at set-up, and resets the process-wide
/// mutual-exclusion state (``MutualExclusion/reset()``). Subclasses that override `setUp()` or `tearDown()` must
/// call `super`.
///
/// Not thread-safe: use its members from the test method, as XCTest calls them.
open class ProcedureKitTestCase: XCTestCase {

    /// The queue for this test.
    public var queue: ProcedureQueue!
    /// The queue's delegate, recording every callback.
    public var delegate: QueueTestDelegate!
    /// A test procedure for this test.
    open var procedure: TestProcedure!

    private var savedLogSettings: (enabled: Bool, severity: LogSeverity)?
    /// Expectations made by ``addCompletionBlockTo(procedure:withExpectationDescription:)`` and not waited for yet.
    private var pendingExpectations: [XCTestExpectation] = []

    /// Creates the queue, its delegate and the procedure.
    open override func setUp() {
        super.setUp()
        savedLogSettings = (Log.enabled, Log.severity)
        queue = ProcedureQueue()
        delegate = QueueTestDelegate()
        queue.delegate = delegate
        procedure = TestProcedure()
    }

    /// Cancels everything, waits for the queue to drain and resets process-wide state.
    open override func tearDown() {
        procedure?.cancel()
        if let queue {
            queue.cancelAllOperations()
            let drained = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                queue.waitUntilAllOperationsAreFinished()
                drained.signal()
            }
            if drained.wait(timeout: .now() + 10) == .timedOut {
                XCTFail("\(queue.operationCount) operation(s) still on the queue 10 s after the test; a hang?")
            }
        }
        delegate = nil
        queue = nil
        procedure = nil
        if let savedLogSettings {
            Log.enabled = savedLogSettings.enabled
            Log.severity = savedLogSettings.severity
        }
        MutualExclusion.reset()
        super.tearDown()
    }

    /// Installs `delegate` as the queue's delegate (and keeps it alive as ``delegate``).
    public func set(queueDelegate delegate: QueueTestDelegate) {
        self.delegate = delegate
        queue.delegate = delegate
    }

    // MARK: - Running

    /// Adds `operation` to the queue.
    public func run(operation: Operation) {
        run(operations: [operation])
    }

    /// Adds `operations` to the queue, in order.
    public func run(operations: Operation...) {
        run(operations: operations)
    }

    /// Adds `operations` to the queue, in order.
    public func run(operations: [Operation]) {
        queue.addOperations(operations, waitUntilFinished: false)
    }

    // MARK: - Waiting

    /// Adds `procedures` to the queue and waits until each of them, and every operation each produced, has
    /// finished; fails the test after `timeout` seconds.
    public func wait(
        for procedures: Procedure..., withTimeout timeout: TimeInterval = 3,
        withExpectationDescription expectationDescription: String = #function,
        handler: XCWaitCompletionHandler? = nil
    ) {
        wait(
            forAll: procedures, withTimeout: timeout, withExpectationDescription: expectationDescription,
            handler: handler)
    }

    /// Adds `procedures` to the queue and waits until each of them, and every operation each produced, has
    /// finished; fails the test after `timeout` seconds.
    public func wait(
        forAll procedures: [Procedure], withTimeout timeout: TimeInterval = 3,
        withExpectationDescription expectationDescription: String = #function,
        handler: XCWaitCompletionHandler? = nil
    ) {
        addCompletionBlockTo(procedures: procedures, withExpectationDescription: expectationDescription)
        run(operations: procedures)
        waitForPendingExpectations(timeout: timeout, handler: handler)
    }

    /// Waits for the expectations made by ``addCompletionBlockTo(procedure:withExpectationDescription:)`` since
    /// the last wait; fails the test (and passes an error to `handler`) after `timeout` seconds.
    public func waitForPendingExpectations(timeout: TimeInterval = 3, handler: XCWaitCompletionHandler? = nil) {
        let expectations = pendingExpectations
        pendingExpectations = []
        let result = XCTWaiter().wait(for: expectations, timeout: waitableSeconds(timeout))
        if result == .completed {
            handler?(nil)
        } else {
            XCTFail("waited \(timeout) s for \(expectations.map(\.expectationDescription)): \(result)")
            handler?(ProcedureKitError(context: .programmingError("expectations not fulfilled within \(timeout) s")))
        }
    }

    /// Adds `procedure` (and `additionalProcedures`) to the queue, calls `checkBeforeWait` with it at once, then
    /// waits for them all as ``wait(forAll:withTimeout:withExpectationDescription:handler:)`` does.
    public func check<T: Procedure>(
        procedure: T, withAdditionalProcedures additionalProcedures: Procedure...,
        withTimeout timeout: TimeInterval = 3,
        withExpectationDescription expectationDescription: String = #function, checkBeforeWait: (T) -> Void
    ) {
        let procedures = [procedure] + additionalProcedures
        addCompletionBlockTo(procedures: procedures, withExpectationDescription: expectationDescription)
        run(operations: procedures)
        checkBeforeWait(procedure)
        waitForPendingExpectations(timeout: timeout)
    }

    /// Runs `procedure`, calling `checkAfterDidExecuteBlock` from a DidExecute observer, and waits for it.
    public func checkAfterDidExecute<T: Procedure>(
        procedure: T, withTimeout timeout: TimeInterval = 3,
        withExpectationDescription expectationDescription: String = #function,
        checkAfterDidExecuteBlock: @escaping @Sendable (T) -> Void
    ) {
        procedure.addDidExecuteBlockObserver { checkAfterDidExecuteBlock($0) }
        wait(for: procedure, withTimeout: timeout, withExpectationDescription: expectationDescription)
    }

    /// Makes the next wait (``waitForPendingExpectations(timeout:handler:)``, which the `wait` helpers call) wait
    /// for `procedure`, and every operation it produces, to finish.
    ///
    /// A finishing procedure depending on `procedure` and on what it produces is added to the queue; the
    /// expectation is fulfilled once that has finished.
    public func addCompletionBlockTo(
        procedure: Procedure, withExpectationDescription expectationDescription: String = #function
    ) {
        let expectation = XCTestExpectation(description: "\(expectationDescription): \(procedure.procedureName)")
        pendingExpectations.append(expectation)
        let finishing = BlockProcedure {}
        finishing.name = "FinishingBlockProcedure(for: \(procedure.procedureName))"
        finishing.addDependency(procedure)
        procedure.addWillAddOperationBlockObserver { _, operation in finishing.addDependency(operation) }
        finishing.addDidFinishBlockObserver { _, _ in expectation.fulfill() }
        queue.add(procedure: finishing)
    }

    /// ``addCompletionBlockTo(procedure:withExpectationDescription:)`` for each of `procedures`.
    public func addCompletionBlockTo<S: Sequence>(
        procedures: S, withExpectationDescription expectationDescription: String = #function
    ) where S.Element == Procedure {
        for procedure in procedures {
            addCompletionBlockTo(procedure: procedure, withExpectationDescription: expectationDescription)
        }
    }

    /// An expectation fulfilled when `procedure` finishes (its DidFinish observers included); the next
    /// ``waitForPendingExpectations(timeout:handler:)`` waits for it.
    @discardableResult
    public func addExpectationCompletionBlockTo(
        procedure: Procedure, withExpectationDescription expectationDescription: String = #function
    ) -> XCTestExpectation {
        let expectation = XCTestExpectation(description: "\(expectationDescription): \(procedure.procedureName)")
        pendingExpectations.append(expectation)
        add(expectation: expectation, to: procedure)
        return expectation
    }

    /// Fulfils `expectation` when `procedure` finishes.
    public func add(expectation: XCTestExpectation, to procedure: Procedure) {
        procedure.addDidFinishBlockObserver { _, _ in expectation.fulfill() }
    }

    /// A test procedure named "Cancelling Test Procedure" that cancels itself just before it would execute, so it
    /// ends cancelled without errors and never executes.
    public func createCancellingProcedure() -> TestProcedure {
        let procedure = TestProcedure(name: "Cancelling Test Procedure")
        procedure.addWillExecuteBlockObserver { procedure, _ in procedure.cancel() }
        return procedure
    }
}
