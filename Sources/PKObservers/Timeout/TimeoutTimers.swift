import PKCore
import Synchronization

/// The running timers of every ``TimeoutObserver`` that has no timer of its own for the procedure, by procedure:
/// entered at WillExecute, taken out and cancelled at DidFinish.
///
/// On the system clock an observer value starts the timer it carries for the first procedure it times, and only
/// further procedures (the value attached to several, or twice to one) come here; on other clocks every timer
/// does. While the table is empty, finishing looks at one atomic counter and takes no lock (PERF(W12)).
///
/// One process-wide table in sixteen locked shards, not a table per observer value. The common use puts a new
/// observer on every procedure, and a table of its own for each cost an allocation, a lock and a deallocation per
/// procedure, on the thread that finished it (PERF(W12)). Entries hold no reference to the procedure (the timer does,
/// until it is cancelled), and they are keyed by the procedure's identity, which cannot be reused while it runs.
///
/// When a procedure finishes, the first of its timeout observers to hear it cancels every timer the procedure has,
/// its own and other observers' alike: all of them are due to be cancelled at that moment anyway.
///
/// Thread-safe: each shard's dictionary is guarded by its mutex; timers are cancelled outside it.
final class TimeoutTimers: Sendable {

    /// A running timer and the observer value that started it.
    struct Entry: Sendable {
        let observer: UInt64
        let timer: any ScheduledAction
    }

    /// The timers of one procedure: nearly always one (no array for it).
    enum Timers: Sendable {
        case one(Entry)
        case many([Entry])

        var count: Int {
            switch self {
            case .one: 1
            case .many(let entries): entries.count
            }
        }

        var entries: [Entry] {
            switch self {
            case .one(let entry): [entry]
            case .many(let entries): entries
            }
        }

        func cancelAll() {
            switch self {
            case .one(let entry): entry.timer.cancel()
            case .many(let entries): for entry in entries { entry.timer.cancel() }
            }
        }
    }

    private final class Shard: Sendable {
        let table = PKMutex<[ObjectIdentifier: Timers]>([:])
    }

    /// The one table.
    static let shared = TimeoutTimers()

    private static let shardCount = 16
    private let shards = (0..<TimeoutTimers.shardCount).map { _ in Shard() }
    private let lastObserver = Atomic<UInt64>(0)
    /// How many timers the shards hold (counted before they are entered and after they are taken out).
    private let timerCount = Atomic<Int>(0)

    /// A number no other observer value has.
    func makeObserverID() -> UInt64 {
        lastObserver.add(1, ordering: .relaxed).newValue
    }

    private func shard(for procedure: Procedure) -> Shard {
        // Objects are at least 16-byte aligned: the bits above that spread them.
        let address = UInt(bitPattern: ObjectIdentifier(procedure))
        return shards[Int((address >> 4) % UInt(Self.shardCount))]
    }

    /// Records `timer`, started by `observer` for `procedure`.
    func add(_ timer: any ScheduledAction, observer: UInt64, for procedure: Procedure) {
        let entry = Entry(observer: observer, timer: timer)
        timerCount.add(1, ordering: .sequentiallyConsistent)
        shard(for: procedure).table.withLock { table in
            switch table[ObjectIdentifier(procedure)] {
            case nil: table[ObjectIdentifier(procedure)] = .one(entry)
            case .one(let first)?: table[ObjectIdentifier(procedure)] = .many([first, entry])
            case .many(let entries)?: table[ObjectIdentifier(procedure)] = .many(entries + [entry])
            }
        }
    }

    /// Takes out every timer `procedure` has and cancels them (outside the lock).
    ///
    /// The counter is read without the lock: a procedure's WillExecute (which enters its timers) happens before its
    /// DidFinish (which calls this), so the procedure's own timers are always counted by then.
    func cancelAll(for procedure: Procedure) {
        guard timerCount.load(ordering: .sequentiallyConsistent) > 0 else { return }
        let timers = shard(for: procedure).table.withLock { $0.removeValue(forKey: ObjectIdentifier(procedure)) }
        guard let timers else { return }
        timerCount.subtract(timers.count, ordering: .sequentiallyConsistent)
        timers.cancelAll()
    }

    /// How many timers `observer` has running; for tests.
    func count(for observer: UInt64) -> Int {
        shards.reduce(0) { total, shard in
            total
                + shard.table.withLock { table in
                    table.values.reduce(0) { $0 + $1.entries.filter { $0.observer == observer }.count }
                }
        }
    }
}
