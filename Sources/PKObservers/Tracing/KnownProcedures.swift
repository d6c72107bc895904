import Foundation
import PKCore

/// The procedures a ``TraceRecorder`` has numbered through a ``TraceObserver`` (those of one shard, see
/// ``TraceShard``), so that the recorder can tell which of a procedure's dependencies it traces, and write the
/// procedures still running; and the interests of traced dependents in dependencies not traced yet, however those
/// come to be traced. (A procedure traced through a ``QueueTrace`` is not here: its instrument identifies it.)
///
/// Identity without weak references: a weak reference to a procedure gives it a side table, which makes every
/// retain and release of it slower for the rest of its life (W13 cost 5.9×W1 with them, 3.9× without). Instead an
/// entry pins its procedure's address with an `unowned` reference, which never keeps the procedure alive (it is
/// deinitialized when the last strong reference goes, and its observers and everything it holds are released) but
/// keeps its memory block allocated, so no other object can take the address while the entry exists. An
/// `ObjectIdentifier` therefore means the same procedure for as long as it is a key here.
///
/// Entries of running procedures stay until they finish (a procedure dropped without ever running never does: its
/// entry stays for the recorder's life). Finished ones are kept a little longer, the most recent
/// ``finishedKept`` of the shard, so that a dependent enqueued just after its dependency finished is still linked;
/// each costs its procedure's memory block (a few hundred bytes) until it is dropped. A dependent that is traced
/// before its dependency registers an interest instead, which the dependency takes up when it is traced, and the
/// dependent withdraws when it finishes; it holds its dependency, so the address cannot be reused meanwhile.
///
/// Not thread-safe: each shard lives inside its own lock.
struct KnownProcedures {

    struct Entry {
        /// Pins the procedure's address; never read.
        // PERF(W13): an unowned reference instead of a weak one (see the type's documentation).
        unowned let procedure: Procedure
        let id: UInt64
        /// The observer, until the procedure finishes.
        // PERF(W13): kept in the entry, not in a second table: one hash operation to register, one to finish.
        var running: RunningObserver?
    }

    /// The observer of a procedure that has not finished, held weakly: the observer holds the recorder, so a strong
    /// reference here would keep the recorder alive through a procedure dropped without ever running.
    struct RunningObserver {
        weak var observer: (any TraceLive)?
    }

    enum Registration {
        /// Numbered now: its type's name, and the traced procedures that were waiting for it (its dependents).
        case registered(category: String, dependents: [UInt64])
        /// Already traced by this recorder, by this observer (`nil` once it finished).
        case tracedAlready((any TraceLive)?)
    }

    /// How many finished procedures each shard keeps recognising.
    static let finishedKept = 256

    /// The numbered procedures, with the observers of those that have not finished.
    private var entries: [ObjectIdentifier: Entry] = [:]
    /// Finished procedures, oldest first from `finishedHead`.
    private var finished: [ObjectIdentifier] = []
    private var finishedHead = 0
    /// Traced dependents waiting for a dependency that is not traced (yet), by the dependency's address.
    private var interests: [ObjectIdentifier: [UInt64]] = [:]
    private var categories: [ObjectIdentifier: String] = [:]
    /// The type last named, and its name: procedures of one type usually come in runs.
    private var lastCategory: (type: ObjectIdentifier, name: String)?

    /// Numbers `procedure` as `id`, unless it is traced already.
    mutating func register(_ procedure: Procedure, id: UInt64, observer: any TraceLive) -> Registration {
        let key = ObjectIdentifier(procedure)
        let entry = Entry(procedure: procedure, id: id, running: RunningObserver(observer: observer))
        if let existing = entries.updateValue(entry, forKey: key) {
            entries[key] = existing  // rare: put it back
            return .tracedAlready(existing.running?.observer)
        }
        let dependents = takeInterests(in: key)
        return .registered(category: category(of: procedure), dependents: dependents)
    }

    /// The number of `operation`, if it is a procedure traced by the recorder and running or recently finished.
    func identifier(of operation: Operation) -> UInt64? {
        entries[ObjectIdentifier(operation)]?.id
    }

    /// `.tracedAlready` with the procedure's observer (`nil` once it finished) if `procedure` is numbered.
    func tracedAlready(_ procedure: ObjectIdentifier) -> Registration? {
        guard let entry = entries[procedure] else { return nil }
        return .tracedAlready(entry.running?.observer)
    }

    /// `dependent` waits to hear if `dependency` is traced (the caller holds `dependency`, through the dependent,
    /// until it withdraws the interest).
    mutating func addInterest(in dependency: ObjectIdentifier, from dependent: UInt64) {
        interests[dependency, default: []].append(dependent)
    }

    /// The traced dependents waiting for `procedure`, which is being numbered now; they wait no longer.
    mutating func takeInterests(in procedure: ObjectIdentifier) -> [UInt64] {
        interests.isEmpty ? [] : interests.removeValue(forKey: procedure) ?? []
    }

    /// Withdraws `dependent`'s interest in `dependency`, if it is still there.
    mutating func withdrawInterest(in dependency: ObjectIdentifier, from dependent: UInt64) {
        guard var waiting = interests[dependency] else { return }
        waiting.removeAll { $0 == dependent }
        interests[dependency] = waiting.isEmpty ? nil : waiting
    }

    /// What a finished procedure lets go of: its observer, and the entry of the oldest finished procedure beyond the
    /// ones kept. Released by the caller after the lock (freeing a pinned memory block is not free).
    struct Released {
        var observer: RunningObserver?
        var evicted: Entry?
    }

    /// Forgets the observer of a procedure that finished, and the oldest finished procedure beyond the ones kept.
    mutating func procedureFinished(_ procedure: ObjectIdentifier, id: UInt64) -> Released {
        var released = Released()
        // PERF(W13): found by index and changed in place through `values` (the optional-returning subscript's
        // accessor costs more).
        guard let index = entries.index(forKey: procedure), entries.values[index].id == id else { return released }
        swap(&entries.values[index].running, &released.observer)
        finished.append(procedure)
        if finished.count - finishedHead > Self.finishedKept {
            released.evicted = entries.removeValue(forKey: finished[finishedHead])
            finishedHead += 1
            if finishedHead >= Self.finishedKept {
                finished.removeFirst(finishedHead)
                finishedHead = 0
            }
        }
        return released
    }

    /// The observers (or queue traces) of the traced procedures that have not finished.
    var unfinished: [any TraceLive] {
        entries.values.compactMap { $0.running?.observer }
    }

    /// Caches type names: describing a type costs far more than a dictionary lookup.
    private mutating func category(of procedure: Procedure) -> String {
        let type = ObjectIdentifier(Swift.type(of: procedure))
        if let last = lastCategory, last.type == type { return last.name }
        if let name = categories[type] {
            lastCategory = (type, name)
            return name
        }
        let name = String(describing: Swift.type(of: procedure))
        categories[type] = name
        lastCategory = (type, name)
        return name
    }
}
