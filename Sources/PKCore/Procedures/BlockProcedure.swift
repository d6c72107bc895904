/// A procedure that runs a throwing closure: returning finishes it, throwing finishes it with that error.
///
/// ```swift
/// queue.add(procedure: BlockProcedure { print("Hello") })
/// ```
///
/// The block runs in the procedure's event context on the queue's dispatch queue. It is released when the
/// procedure finishes. A cancelled block procedure does not run its block.
open class BlockProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `block` is immutable and Sendable; everything else is the superclass's.

    private let block: @Sendable () throws -> Void

    /// Creates a procedure that runs `block`.
    public init(block: @escaping @Sendable () throws -> Void) {
        self.block = block
        super.init()
    }

    /// Runs the block and finishes.
    open override func execute() {
        do {
            try block()
            finish()
        } catch {
            finish(with: error)
        }
    }
}
