import Foundation
import Synchronization

/// Checks that objects (procedures, observers, queues, anything) are deallocated once a test drops them.
///
/// Track each object, drop every strong reference (let them go out of scope), then wait: deallocation may happen
/// a moment later on another thread, when the framework lets go of its last reference, so the wait polls until
/// every tracked reference is `nil` or the timeout passes, and returns the names of those still alive.
///
/// ```swift
/// let leaks = LeakCheck()
/// do {
///     let procedure = TestProcedure()
///     leaks.track(procedure)
///     queue.add(procedure: procedure)
///     await procedure.waitUntilFinished()
/// }
/// #expect(await leaks.unreleased(timeout: 5) == [])
/// ```
///
/// Thread-safe. Holding a `LeakCheck` never keeps a tracked object alive.
public final class LeakCheck: Sendable {

    // @unchecked Sendable: an Entry is only created, read and replaced inside `LeakCheck.entries`' Mutex, and its
    // weak reference is only compared with nil (loading a weak reference is thread-safe).
    private struct Entry: @unchecked Sendable {
        weak var object: AnyObject?
        let name: String
    }

    private let entries = PKMutex<[Entry]>([])

    /// Creates an empty check.
    public init() {}

    /// Starts tracking `object` weakly; `name` (default: its description and type) is what a report shows.
    public func track(_ object: any AnyObject & Sendable, name: String? = nil) {
        let entry = Entry(object: object, name: name ?? "\(type(of: object)) \(object)")
        entries.withLock { $0.append(entry) }
    }

    /// Starts tracking each of `objects` weakly.
    public func track(_ objects: [any AnyObject & Sendable]) {
        for object in objects { track(object) }
    }

    /// The names of tracked objects that are still alive now.
    public var alive: [String] {
        entries.withLock { $0.filter { $0.object != nil }.map(\.name) }
    }

    /// Blocks until every tracked object has been released or `timeout` seconds pass; returns the names of the
    /// objects still alive (empty when everything was released).
    public func waitUntilReleased(timeout: TimeInterval = 5) -> [String] {
        let deadline = Date().addingTimeInterval(waitableSeconds(timeout))
        while true {
            let alive = self.alive
            if alive.isEmpty || Date() >= deadline { return alive }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// Suspends until every tracked object has been released or `timeout` seconds pass; returns the names of the
    /// objects still alive (empty when everything was released).
    public func unreleased(timeout: TimeInterval = 5) async -> [String] {
        let deadline = Date().addingTimeInterval(waitableSeconds(timeout))
        while true {
            let alive = self.alive
            if alive.isEmpty || Date() >= deadline { return alive }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}
