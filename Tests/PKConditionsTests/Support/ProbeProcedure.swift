import PKTesting

/// A procedure whose `execute()` runs a closure given at creation (by default it just finishes); it counts how
/// often it executed.
final class ProbeProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `body` is immutable and Sendable; `count` is guarded by its PKMutex.

    private let body: @Sendable (ProbeProcedure) -> Void
    private let count = PKMutex(0)

    init(name: String = "ProbeProcedure", execute body: @escaping @Sendable (ProbeProcedure) -> Void = { $0.finish() })
    {
        self.body = body
        super.init()
        self.name = name
    }

    var didExecute: Bool { count.withLock { $0 } > 0 }

    override func execute() {
        count.withLock { $0 += 1 }
        body(self)
    }
}
