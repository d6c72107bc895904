/// The dependencies of procedures cancelled for a dependency cycle, kept after they finish.
///
/// A finished procedure lets go of its dependencies. One cancelled for a cycle is the exception: a procedure
/// that arrives later may close a larger cycle through it (A and B waited for each other and were cancelled;
/// C arrives depending on A, and B depended on C), and the arrival's check must be able to walk on from it. The
/// dependencies are held weakly (members of a cycle would otherwise keep each other alive) and forgotten when
/// the procedure is released. Only procedures cancelled for a cycle have an entry, so the table is normally empty.
enum CycleRemnants {

    private struct WeakProcedure {
        weak var procedure: Procedure?
    }

    private static let table = PKMutex<[ObjectIdentifier: [WeakProcedure]]>([:])

    /// Keeps `procedure`'s dependencies (it is being cancelled for a cycle).
    static func record(_ procedure: Procedure) {
        let dependencies = procedure.storage.withLock { state in
            state.dependencies.compactMap { $0 as? Procedure }.map { WeakProcedure(procedure: $0) }
        }
        table.withLock { $0[ObjectIdentifier(procedure)] = dependencies }
    }

    /// The dependencies of `procedure` that are still alive, when it was cancelled for a cycle.
    static func dependencies(of procedure: Procedure) -> [Procedure] {
        // The weak references are loaded after the lock: loading one can release the last strong reference.
        let entries = table.withLock { $0[ObjectIdentifier(procedure)] } ?? []
        return entries.compactMap(\.procedure)
    }

    /// Forgets `procedure`'s entry (it is being released).
    static func forget(_ procedure: Procedure) {
        let removed = table.withLock { $0.removeValue(forKey: ObjectIdentifier(procedure)) }
        withExtendedLifetime(removed) {}
    }
}
