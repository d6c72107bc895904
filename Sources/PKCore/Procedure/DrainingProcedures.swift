/// Which procedures' event contexts the current thread is draining, innermost first.
///
/// A thread can drain several procedures' events at once (a procedure's observer cancels another, whose events
/// then run inline). `synchronize` uses this to run inline instead of waiting for itself. The list lives on the
/// draining threads' stacks; a ``ThreadLocalPointer`` points at the innermost entry.
enum DrainingProcedures {

    private struct Entry {
        /// The procedure drained, unretained (`nil` for an entry that stands for a set of them): the draining
        /// thread holds it for the whole drain (`drain` and `synchronize` are its methods).
        let procedure: Unmanaged<Procedure>?
        /// Several procedures at once (see ``withDraining(all:_:)``), looked up by hash.
        let group: UnsafePointer<Set<ObjectIdentifier>>?
        let outer: UnsafeMutablePointer<Entry>?
    }

    /// The innermost entry of this thread.
    private static let innermost = ThreadLocalPointer<Entry>()

    /// Runs `body` with `procedure` recorded as being drained by this thread.
    static func withDraining<R>(_ procedure: Procedure, _ body: () -> R) -> R {
        let outer = innermost.current
        var entry = Entry(procedure: .passUnretained(procedure), group: nil, outer: outer)
        return withUnsafeMutablePointer(to: &entry) { innermost.withCurrent($0, restoring: outer, body) }
    }

    /// Runs `body` with every one of `procedures` recorded as being drained by this thread: the thread holds all of
    /// their event contexts (it accepted an event for each and will drain them), so a `synchronize` with one of
    /// them from inside `body` runs inline instead of waiting for this very thread.
    static func withDraining<R>(all procedures: [Procedure], _ body: () -> R) -> R {
        guard !procedures.isEmpty else { return body() }
        // One entry for all of them, a set looked up by hash, so `isDraining` stays cheap however many there are.
        let outer = innermost.current
        let identities = Set(procedures.map(ObjectIdentifier.init))
        return withUnsafePointer(to: identities) { group in
            var entry = Entry(procedure: nil, group: group, outer: outer)
            return withUnsafeMutablePointer(to: &entry) { innermost.withCurrent($0, restoring: outer, body) }
        }
    }

    /// Whether this thread is draining `procedure`'s events.
    static func isDraining(_ procedure: Procedure) -> Bool {
        var current = innermost.current
        let id = ObjectIdentifier(procedure)
        let address = Unmanaged.passUnretained(procedure).toOpaque()
        while let pointer = current {
            let entry = pointer.pointee
            if entry.procedure?.toOpaque() == address || entry.group?.pointee.contains(id) == true { return true }
            current = entry.outer
        }
        return false
    }

    /// The innermost single procedure whose events this thread is draining (entries standing for sets are
    /// skipped), or `nil`: what ``ProcedureQueue/current`` reads.
    static var innermostProcedure: Procedure? {
        var current = innermost.current
        while let pointer = current {
            if let procedure = pointer.pointee.procedure { return procedure.takeUnretainedValue() }
            current = pointer.pointee.outer
        }
        return nil
    }
}
