import Foundation
import PKTesting
import Synchronization

/// What happened to one procedure of a scenario, as it happened: every event with its place in the scenario's one
/// global order, whether two of its events overlapped, and what its `execute()` saw.
final class Track: Sendable {

    enum Event: String, Sendable {
        case didAttach, willExecute, execute, didExecute, didCancel, willAdd, didAdd, willFinish, didFinish
    }

    let name: String
    /// The scenario node this procedure was built for (`nil` for retry and repeat attempts).
    let node: Int?
    /// Whether the runner cancelled it before adding it to its queue.
    let cancelledBeforeAdd = Atomic<Bool>(false)

    private struct State {
        var events: [(Event, Int)] = []
        /// The events begun and not ended, innermost last, with the thread each began on.
        var inFlight: [(Event, pthread_t)] = []
        var overlaps: [String] = []
        var executeViolations: [String] = []
    }

    private let state = PKMutex(State())
    private let ledger: ScenarioLedger

    init(name: String, node: Int?, ledger: ScenarioLedger) {
        self.name = name
        self.node = node
        self.ledger = ledger
    }

    /// Records that `event` begins; pair with ``end()``.
    ///
    /// Events of one procedure never overlap, with one exception that ProcedureKit has too: a group's `execute()`
    /// adds its initial children, so their WillAdd and DidAdd run inside it, on its thread.
    func begin(_ event: Event) {
        let sequence = ledger.nextSequence()
        let thread = pthread_self()
        state.withLock { state in
            if let (outer, outerThread) = state.inFlight.last {
                let nestedAdd =
                    outer == .execute && pthread_equal(outerThread, thread) != 0
                    && (event == .willAdd || event == .didAdd)
                if !nestedAdd {
                    state.overlaps.append("\(name): \(event) began while another event was in progress")
                }
            }
            state.inFlight.append((event, thread))
            state.events.append((event, sequence))
        }
    }

    /// Records that the event begun last ended.
    func end() {
        state.withLock { _ = $0.inFlight.popLast() }
    }

    /// Records `event` as one step (begin and end).
    func record(_ event: Event) {
        begin(event)
        end()
    }

    func violation(_ message: String) {
        state.withLock { $0.executeViolations.append("\(name): \(message)") }
    }

    var events: [(Event, Int)] { state.withLock { $0.events } }
    var overlaps: [String] { state.withLock { $0.overlaps } }
    var executeViolations: [String] { state.withLock { $0.executeViolations } }

    func count(_ event: Event) -> Int { events.filter { $0.0 == event }.count }

    /// The global sequence number of the first `event`, if any.
    func first(_ event: Event) -> Int? { events.first { $0.0 == event }?.1 }
}

/// Records every callback of the procedure it is attached to into its ``Track``.
struct TrackObserver: ProcedureObserver {
    let track: Track

    func didAttach(to procedure: Procedure) { track.record(.didAttach) }
    func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) { track.record(.willExecute) }
    func did(execute procedure: Procedure) { track.record(.didExecute) }
    func did(cancel procedure: Procedure, withErrors errors: [any Error]) { track.record(.didCancel) }
    func procedure(_ procedure: Procedure, willAdd newOperation: Operation) { track.record(.willAdd) }
    func procedure(_ procedure: Procedure, didAdd newOperation: Operation) { track.record(.didAdd) }
    func will(finish procedure: Procedure, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        track.record(.willFinish)
    }
    func did(finish procedure: Procedure, withErrors errors: [any Error]) { track.record(.didFinish) }
}

/// The scenario-wide record: one global order of events, a concurrency tracker per mutually exclusive category,
/// and every procedure built (weakly, through the leak check) with its track.
final class ScenarioLedger: Sendable {
    private let sequence = Atomic<Int>(0)
    let categories: [ConcurrencyTracker]
    private let tracks = PKMutex<[Track]>([])
    let leaks = LeakCheck()

    init(categoryCount: Int) {
        categories = (0..<categoryCount).map { _ in ConcurrencyTracker() }
    }

    func nextSequence() -> Int { sequence.add(1, ordering: .sequentiallyConsistent).newValue }

    /// Makes a track for a new procedure, attaches its observer, and tracks the procedure for leaks.
    func track(_ procedure: Procedure, node: Int?) -> Track {
        let track = Track(name: procedure.procedureName, node: node, ledger: self)
        tracks.withLock { $0.append(track) }
        leaks.track(procedure)
        procedure.addObserver(TrackObserver(track: track))
        return track
    }

    var allTracks: [Track] { tracks.withLock { $0 } }
}
