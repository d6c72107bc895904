import Foundation
import Synchronization

/// A configurable procedure for tests: it takes a `String` input, outputs `"Hello <input>"` (or, when no input was
/// injected, the output set before it executed, or else `"Hello World"`), may produce an operation, and finishes with a chosen error
/// after a chosen delay.
///
/// Its `execute()` records that it ran (``didExecute``, ``executedAt``, ``executeCount``), produces ``produced``
/// if set, sets the output, then finishes: at once when ``delay`` is 0, otherwise after ``delay`` on a global
/// dispatch queue. It ignores cancellation while it waits; add a DidCancel observer if a test needs it to stop
/// early. The override flags are set in the procedure's event context, before its observers run.
///
/// Subclass it to add behaviour; subclasses restate `@unchecked Sendable`.
open class TestProcedure: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: every mutable field below lives in `record`, guarded by its Mutex; `delay`,
    // `errorToFinishWith`
    // and `produced` are immutable; the superclass guards its own state.

    private struct Record {
        var input: Pending<String> = .pending
        var output: Pending<ProcedureResult<String>> = .pending
        var executeCount = 0
        var executedAt: Date?
        var procedureDidCancelCalled = false
        var procedureWillFinishCalled = false
        var procedureDidFinishCalled = false
    }

    /// How long `execute()` waits before finishing; 0 finishes synchronously inside `execute()`.
    public let delay: TimeInterval
    /// The error the procedure finishes with, or `nil` for success (`Procedure.error` is the error it
    /// actually finished with).
    public let errorToFinishWith: (any Error)?
    /// An operation `execute()` produces onto the procedure's queue, or `nil`.
    public let produced: Operation?

    /// ProcedureKit's name for ``errorToFinishWith``.
    public var expectedError: (any Error)? { errorToFinishWith }
    /// ProcedureKit's name for ``produced``.
    public var producedOperation: Operation? { produced }

    private let record = PKMutex(Record())

    /// Creates a test procedure.
    ///
    /// - Parameters:
    ///   - name: The procedure's name.
    ///   - delay: Seconds to wait (on a global queue) between `execute()` and finishing.
    ///   - error: The error to finish with.
    ///   - produced: An operation to produce from `execute()`.
    public init(
        name: String = "TestProcedure", delay: TimeInterval = 0, error: (any Error)? = nil,
        produced: Operation? = nil
    ) {
        self.delay = delay
        self.errorToFinishWith = error
        self.produced = produced
        super.init()
        self.name = name
    }

    // MARK: - Input and output

    /// The injected input; `.pending` until set.
    open var input: Pending<String> {
        get { record.withLock { $0.input } }
        set { record.withLock { $0.input = newValue } }
    }

    /// The output; `.pending` until `execute()` sets it.
    open var output: Pending<ProcedureResult<String>> {
        get { record.withLock { $0.output } }
        set { record.withLock { $0.output = newValue } }
    }

    // MARK: - What happened

    /// `true` once `execute()` has been called.
    public var didExecute: Bool { record.withLock { $0.executeCount > 0 } }
    /// How many times `execute()` was called (a procedure runs at most once, so 0 or 1).
    public var executeCount: Int { record.withLock { $0.executeCount } }
    /// When `execute()` was (first) called.
    public var executedAt: Date? { record.withLock { $0.executedAt } }
    /// `true` once ``procedureDidCancel(withErrors:)`` has run.
    public var procedureDidCancelCalled: Bool { record.withLock { $0.procedureDidCancelCalled } }
    /// `true` once ``procedureWillFinish(withErrors:)`` has run.
    public var procedureWillFinishCalled: Bool { record.withLock { $0.procedureWillFinishCalled } }
    /// `true` once ``procedureDidFinish(withErrors:)`` has run.
    public var procedureDidFinishCalled: Bool { record.withLock { $0.procedureDidFinishCalled } }

    // MARK: - Overrides

    /// Records the call, produces ``produced``, sets the output and finishes (see the type's documentation).
    open override func execute() {
        let now = Date()
        record.withLock {
            $0.executeCount += 1
            if $0.executedAt == nil { $0.executedAt = now }
        }
        if let produced {
            do {
                try produce(operation: produced)
            } catch {
                finish(with: error)
                return
            }
        }
        // ProcedureKit's TestProcedure: an injected input gives "Hello <input>"; otherwise an output set beforehand
        // is kept, and only a pending one becomes "Hello World".
        if let input = input.value {
            output = .ready(.success("Hello \(input)"))
        } else if output.isPending {
            output = .ready(.success("Hello World"))
        }
        let error = errorToFinishWith
        if delay <= 0 {
            finish(with: error)
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
                finish(with: error)
            }
        }
    }

    /// Records the call, then calls `super`.
    open override func procedureDidCancel(withErrors errors: [any Error]) {
        record.withLock { $0.procedureDidCancelCalled = true }
        super.procedureDidCancel(withErrors: errors)
    }

    /// Records the call, then calls `super`.
    open override func procedureWillFinish(withErrors errors: [any Error]) {
        record.withLock { $0.procedureWillFinishCalled = true }
        super.procedureWillFinish(withErrors: errors)
    }

    /// Records the call, then calls `super`.
    open override func procedureDidFinish(withErrors errors: [any Error]) {
        record.withLock { $0.procedureDidFinishCalled = true }
        super.procedureDidFinish(withErrors: errors)
    }
}
