/// What a trace keeps of one procedure: the facts its recorder saw, as times and numbers. What is drawn from them
/// (where each slice begins and ends, which arrows can be drawn) is decided when the file is written, from every
/// record at once (``TraceTimeline``). Times are nanoseconds since the recorder was created.
struct TraceRecord: Sendable, Equatable {

    /// How the procedure ended, as written in the slice's `args.status`.
    enum Status: String, Sendable {
        case finished
        case failed
        case cancelled
        /// Still running when the trace was written.
        case unfinished
    }

    /// Why the procedure is linked to the procedure that added it.
    enum LinkKind: String, Sendable {
        /// A group added it as a child.
        case child
        /// A procedure produced it (`produce(operation:)`).
        case produced
    }

    /// The procedure that added this one, when, and on which thread.
    struct Link: Sendable, Equatable {
        let kind: LinkKind
        let parent: UInt64
        let at: UInt64
        /// The operating-system id of the thread that added it.
        let thread: UInt64
    }

    /// When the procedure was cancelled, and with which errors (described).
    struct Cancellation: Sendable, Equatable {
        let at: UInt64
        let errors: [String]
    }

    /// The recorder's number for the procedure; also its lane (`tid`) in a trace with a lane per procedure.
    let id: UInt64
    let name: String
    /// The procedure's type name, the slice's `cat`.
    let category: String
    let queue: String?
    /// `true` when the recorder attached itself as the procedure was added to a queue.
    let attachedOnEnqueue: Bool
    let link: Link?
    let attachedAt: UInt64
    /// When it was about to execute; `nil` when it never executed (or its start was missed).
    let startedAt: UInt64?
    /// When it finished (its DidFinish event), or, for a record written before it finished, when the trace was.
    let endedAt: UInt64
    /// The operating-system id of the thread `execute()` ran on; `nil` when it never executed.
    let thread: UInt64?
    let cancellation: Cancellation?
    let status: Status
    let errors: [String]
    /// The recorder's numbers of the dependencies it traced (flows end here)...
    let dependencies: [UInt64]
    /// ...and of the traced dependents that were traced before this procedure was (flows start here).
    let dependents: [UInt64]
    /// When its WillFinish event ran (it had begun to finish, and its dependents were not yet told); known only for
    /// a procedure traced by a ``TraceObserver``.
    var finishingAt: UInt64?
    /// The operating-system id of the thread it finished on.
    var finishThread: UInt64?
    /// Whether it finished on its `execute()` thread before that thread started another procedure: the thread was
    /// its own from start to finish (see ``ThreadExecuteMark``).
    var finishedInPlace = false

    /// Whether `execute()` ran (or was running when the trace was written).
    var executed: Bool { startedAt != nil || thread != nil }

    /// The most events this record writes, in either kind of lanes: its lane's name, its slice, its attach instant,
    /// a cancel instant, two events per dependency flow it holds, and for the procedure that added it a marker and
    /// a flow.
    var eventCount: Int {
        Self.eventCount(
            cancelled: cancellation != nil, flows: dependencies.count + dependents.count, linked: link != nil)
    }

    /// ``eventCount`` from its parts.
    static func eventCount(cancelled: Bool, flows: Int, linked: Bool) -> Int {
        3 + (cancelled ? 1 : 0) + 2 * flows + (linked ? 3 : 0)
    }

    /// Error descriptions are kept short and few, so one procedure cannot fill the trace.
    static let maximumErrorsKept = 8
    static let maximumErrorLength = 300

    /// Describes `errors` for the trace: at most ``maximumErrorsKept``, each at most ``maximumErrorLength``
    /// characters, and a last line counting the rest.
    static func describe(_ errors: [any Error]) -> [String] {
        guard !errors.isEmpty else { return [] }
        var described = errors.prefix(maximumErrorsKept).map { error -> String in
            let text = String(describing: error)
            return text.count > maximumErrorLength ? String(text.prefix(maximumErrorLength)) + "…" : text
        }
        if errors.count > maximumErrorsKept {
            described.append("… and \(errors.count - maximumErrorsKept) more")
        }
        return described
    }
}
