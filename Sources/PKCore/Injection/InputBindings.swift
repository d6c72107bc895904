/// The process-wide table behind ``InputProcedure/bind(to:)``: for each source procedure, the forwards to run
/// when its input is injected.
///
/// A procedure has no storage this feature could use, so bindings live here, keyed by the source's identity.
/// Each entry holds its source weakly (a reused address is told apart by comparing it) and is removed when the
/// source finishes; entries whose source was released without finishing are purged on the next `add`.
enum InputBindings {

    /// A forward: receives the source and copies its input to one target.
    typealias Forward = @Sendable (Procedure) -> Void

    private struct Entry {
        weak var source: Procedure?
        var forwards: [Forward]
    }

    private static let table = PKMutex<[ObjectIdentifier: Entry]>([:])

    /// Registers `forward` to run each time `source`'s input is injected.
    static func add(from source: Procedure, forward: @escaping Forward) {
        let key = ObjectIdentifier(source)
        let isFirst = table.withLock { table -> Bool in
            table = table.filter { $0.value.source != nil }
            if let entry = table[key], entry.source === source {
                table[key]?.forwards.append(forward)
                return false
            }
            table[key] = Entry(source: source, forwards: [forward])
            return true
        }
        if isFirst {
            source.addObserver(BlockObserver<Procedure>(didFinish: { source, _ in remove(source) }))
        }
    }

    /// Runs the forwards registered for `source`, outside the lock, in the order they were added.
    static func inputDidBecomeReady(in source: Procedure) {
        let key = ObjectIdentifier(source)
        let forwards = table.withLock { table -> [Forward] in
            guard let entry = table[key], entry.source === source else { return [] }
            return entry.forwards
        }
        for forward in forwards { forward(source) }
    }

    private static func remove(_ source: Procedure) {
        let key = ObjectIdentifier(source)
        table.withLock { table in
            if let entry = table[key], entry.source === source || entry.source == nil {
                table[key] = nil
            }
        }
    }

    /// The number of sources with bindings (for tests).
    static var count: Int { table.withLock { $0.values.filter { $0.source != nil }.count } }
}
