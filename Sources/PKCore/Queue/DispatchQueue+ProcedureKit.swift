import Dispatch
import Foundation

// ProcedureKit's conveniences on `DispatchQueue`, and the queue marking that tells whether work runs on a queue.

extension DispatchQueue {

    /// The global queue of default quality of service.
    public static var `default`: DispatchQueue { .global(qos: .default) }

    /// The global queue of user-initiated quality of service.
    public static var initiated: DispatchQueue { .global(qos: .userInitiated) }

    /// The global queue of user-interactive quality of service.
    public static var interactive: DispatchQueue { .global(qos: .userInteractive) }

    /// The global queue of utility quality of service.
    public static var utility: DispatchQueue { .global(qos: .utility) }

    /// The global queue of background quality of service.
    public static var background: DispatchQueue { .global(qos: .background) }

    /// Whether the calling code runs on the main queue (or, outside any queue's work, on the main thread).
    public static var isMainDispatchQueue: Bool { DispatchQueue.main.isCurrentQueue }

    /// Whether this queue is the main queue.
    public var isMainDispatchQueue: Bool { marker === Self.mainMarker }

    /// Runs `work` on the main queue and returns its result: at once when already there, otherwise with `sync`
    /// (which needs the main queue to be serviced, for example by `dispatchMain()` or a run loop).
    public static func onMain<T>(execute work: () throws -> T) rethrows -> T {
        if isMainDispatchQueue { return try work() }
        return try DispatchQueue.main.sync(execute: work)
    }

    /// The value marking a queue so that work can tell whether it runs on it: set once per queue, on first use.
    private final class Marker: Sendable {}

    private static let markerKey = DispatchSpecificKey<Marker>()
    /// Serializes the first marking of each queue, so two threads never give one queue two markers.
    private static let marking = PKMutex(())
    /// The main queue's marker; `DispatchQueue.main` is a new wrapper on every access on Linux, so identity
    /// cannot tell it apart.
    private static let mainMarker: Marker = DispatchQueue.main.marker

    /// This queue's marker, set on first use.
    private var marker: Marker {
        if let marker = getSpecific(key: Self.markerKey) { return marker }
        return Self.marking.withLock { _ in
            if let marker = getSpecific(key: Self.markerKey) { return marker }
            let marker = Marker()
            setSpecific(key: Self.markerKey, value: marker)
            return marker
        }
    }

    /// Whether the calling thread is running this queue's work (directly, or through a queue targeting it). For
    /// the main queue, being on the main thread counts: the main queue's work only ever runs there or inside it.
    var isCurrentQueue: Bool {
        let marker = self.marker
        if DispatchQueue.getSpecific(key: Self.markerKey) === marker { return true }
        return marker === Self.mainMarker && Thread.isMainThread
    }
}
