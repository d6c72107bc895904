import PKCore

/// A procedure whose `execute()` runs a closure with it, then finishes (with `error`, if given).
final class ClosureProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `body` and `failure` are immutable.
    private let body: @Sendable (ClosureProcedure) -> Void
    private let failure: (any Error)?

    init(
        _ name: String = "ClosureProcedure", error: (any Error)? = nil,
        _ body: @escaping @Sendable (ClosureProcedure) -> Void = { _ in }
    ) {
        self.body = body
        self.failure = error
        super.init()
        self.name = name
    }

    override func execute() {
        body(self)
        finish(with: failure)
    }
}
