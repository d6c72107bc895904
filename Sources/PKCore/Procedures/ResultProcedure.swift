/// A procedure that outputs the value its closure returns, or the error it throws.
///
/// ```swift
/// let answer = try await queue.run(ResultProcedure { 42 })
/// ```
///
/// The block runs synchronously in the procedure's event context on the queue's dispatch queue. Returning sets
/// ``output`` to `.success` and finishes; throwing sets it to `.failure` and finishes with the error. A procedure
/// cancelled before it executes never runs its block and its output stays pending. The block is released once
/// it has run. There is no timeout.
open class ResultProcedure<Output: Sendable>: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `outputStorage` and `block` are guarded by their own Mutexes (inside ValueStorage);
    // everything else is the superclass's.

    private enum Body: Sendable {
        case plain(@Sendable () throws -> Output)
        case givenSelf(@Sendable (ResultProcedure<Output>) throws -> Output)
    }

    private let outputStorage = ValueStorage<Pending<ProcedureResult<Output>>>(.pending)
    private let block: ValueStorage<Body?>

    /// Creates a procedure that outputs what `block` returns.
    public init(block: @escaping @Sendable () throws -> Output) {
        self.block = ValueStorage(.plain(block))
        super.init()
    }

    /// Creates a procedure that outputs what `block`, given the procedure itself, returns (ProcedureKit's
    /// `ThrowingOutputBlock` form).
    public init(block: @escaping @Sendable (ResultProcedure<Output>) throws -> Output) {
        self.block = ValueStorage(.givenSelf(block))
        super.init()
    }

    /// The output: pending until the block has run.
    public var output: Pending<ProcedureResult<Output>> {
        get { outputStorage.value }
        set { outputStorage.value = newValue }
    }

    /// Runs the block and finishes with its result.
    open override func execute() {
        let taken = block.update { block in
            defer { block = nil }
            return block
        }
        guard let body = taken else {
            finish(withResult: .failure(ProcedureKitError.programmingError(reason: "\(procedureName) ran twice")))
            return
        }
        switch body {
        case .plain(let block): finish(withResult: Result { try block() })
        case .givenSelf(let block): finish(withResult: Result { try block(self) })
        }
    }
}
