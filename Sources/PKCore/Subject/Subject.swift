import Synchronization

/// A thread-safe, one-to-many notifier that holds its observers weakly.
///
/// Observers are objects; the subject never keeps one alive. ``add(observer:)`` appends, ``remove(observer:)``
/// removes at once, ``dispose(observer:)`` marks an observer to be dropped at the next ``send(_:)``, and
/// ``send(_:)`` calls `notify` for each live one in the order they were added, then recycles the entries of
/// released or disposed observers. `notify` runs on the sending thread, outside the subject's lock, so an observer may
/// add or remove observers while being notified.
public final class Subject<Observer: Sendable>: Sendable {

    // @unchecked Sendable: the weak reference is to an observer whose type is Sendable; entries are only read
    // and written inside `entries`' mutex.
    private struct Entry: @unchecked Sendable {
        weak var object: AnyObject?
        var disposed = false
    }

    // Entries hold weak references to observer objects; every access is under this mutex.
    // PERF(W13): an adaptive mutex (a queue's observers are notified by every worker, several times per
    // procedure), and `send` only copies the array out (a retain) unless it finds entries to recycle.
    private let entries = ContendedMutex<[Entry]>([])

    /// Creates an empty subject.
    public init() {}

    /// Adds `observer`, held weakly. Adding the same observer twice notifies it twice.
    public func add(observer: Observer) {
        let entry = Entry(object: observer as AnyObject)
        entries.withLock { $0.append(entry) }
    }

    /// Removes `observer` immediately.
    public func remove(observer: Observer) {
        let object = observer as AnyObject
        entries.withLock { $0.removeAll { $0.object === object } }
    }

    /// Stops notifying `observer`; its entry is recycled at the next ``send(_:)``.
    public func dispose(observer: Observer) {
        let object = observer as AnyObject
        entries.withLock { entries in
            for index in entries.indices where entries[index].object === object {
                entries[index].disposed = true
            }
        }
    }

    /// Calls `notify` for each live observer in order, then recycles released and disposed observers' entries.
    public func send(_ notify: (Observer) -> Void) {
        // PERF(W13): a single observer (the usual case) is loaded under the lock: no array is copied out, retained
        // and released, on a reference count every sending thread shares.
        var snapshot: [Entry] = []
        let single = entries.withLock { entries -> AnyObject?? in
            guard entries.count == 1 else {
                snapshot = entries
                return .none
            }
            return .some(entries[0].disposed ? nil : entries[0].object)
        }
        if let single {
            if let object = single, let observer = object as? Observer {
                notify(observer)
            } else {
                entries.withLock { $0.removeAll { $0.disposed || $0.object == nil } }
            }
            return
        }
        var recycle = false
        for entry in snapshot {
            guard !entry.disposed, let object = entry.object, let observer = object as? Observer else {
                recycle = true
                continue
            }
            notify(observer)
        }
        if recycle { entries.withLock { $0.removeAll { $0.disposed || $0.object == nil } } }
    }

    /// The live, undisposed observers, in the order they were added.
    public var observers: [Observer] {
        entries.withLock { entries in
            entries.compactMap { $0.disposed ? nil : $0.object as? Observer }
        }
    }

    /// The number of live, undisposed observers.
    public var count: Int { observers.count }

    /// `true` when no observer has been added, or all were removed (a cheap check before building a
    /// notification).
    public var isEmpty: Bool { entries.withLock { $0.isEmpty } }

    /// The live observer at `index`, or `nil` when out of range.
    public subscript(index: Int) -> Observer? {
        let observers = self.observers
        return observers.indices.contains(index) ? observers[index] : nil
    }

    /// The index of `observer` among the live observers, or `nil`.
    public subscript(observer: Observer) -> Int? {
        let object = observer as AnyObject
        return observers.firstIndex { ($0 as AnyObject) === object }
    }
}
