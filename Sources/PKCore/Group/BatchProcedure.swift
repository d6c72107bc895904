import Foundation

/// Runs one procedure per element of its input, in parallel, and outputs their outputs in input order.
///
/// A group whose input is `[T.Input]`: when it executes, `make` creates a `T` for each element with that element
/// as its input, and they run as children. The output is `[T.Output]` in input order if every child produced a
/// value, otherwise the first failure. A pending input when the batch executes cancels it with
/// ``ProcedureKitError/Context/requirementNotSatisfied``. `make` runs on the batch's event context.
open class BatchProcedure<T: Procedure & InputProcedure & OutputProcedure>: GroupProcedure, InputProcedure,
    OutputProcedure, @unchecked Sendable
where T.Input: Sendable, T.Output: Sendable {
    // @unchecked Sendable: `values` and `batch` are guarded by their PKMutex; `make` is immutable and Sendable.

    private let make: @Sendable () -> T
    private let values = PKMutex<(input: Pending<[T.Input]>, output: Pending<ProcedureResult<[T.Output]>>)>(
        (.pending, .pending))
    private let batch = PKMutex<[T]>([])

    /// Creates a batch whose procedures come from `make`.
    public init(input: [T.Input]? = nil, make: @escaping @Sendable () -> T) {
        self.make = make
        super.init(operations: [])
        name = "Batch<\(String(describing: T.self))>"
        if let input { values.withLock { $0.input = .ready(input) } }
    }

    /// The elements to process.
    public var input: Pending<[T.Input]> {
        get { values.withLock { $0.input } }
        set {
            let replaced = values.withLock { replaceValue(&$0.input, with: newValue) }
            withExtendedLifetime(replaced) {}  // released outside the lock
        }
    }

    /// The outputs, in input order, once the batch has finished.
    public var output: Pending<ProcedureResult<[T.Output]>> {
        get { values.withLock { $0.output } }
        set {
            let replaced = values.withLock { replaceValue(&$0.output, with: newValue) }
            withExtendedLifetime(replaced) {}  // released outside the lock
        }
    }

    /// Creates and adds one procedure per element, then runs them.
    open override func execute() {
        guard let elements = input.value else {
            cancel(with: ProcedureKitError.requirementNotSatisfied())
            super.execute()
            return
        }
        let procedures = elements.map { element -> T in
            let procedure = make()
            procedure.input = .ready(element)
            return procedure
        }
        batch.withLock { $0 = procedures }
        addChildren(procedures)
        super.execute()
    }

    /// Gathers the outputs in input order.
    open override func procedureWillFinish(withErrors errors: [any Error]) {
        let procedures = batch.withLock { batch -> [T] in
            defer { batch = [] }
            return batch
        }
        guard !isCancelled, !procedures.isEmpty || input.value?.isEmpty == true else { return }
        var outputs: [T.Output] = []
        for procedure in procedures {
            switch procedure.output {
            case .ready(.success(let value)):
                outputs.append(value)
            case .ready(.failure(let error)):
                output = .ready(.failure(error))
                return
            case .pending:
                output = .ready(.failure(ProcedureKitError.requirementNotSatisfied()))
                return
            }
        }
        output = .ready(.success(outputs))
    }
}
