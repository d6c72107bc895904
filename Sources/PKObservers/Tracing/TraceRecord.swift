/// What a trace keeps of one procedure: enough to write its slice, its instants, its lane's name and the flows
/// that end on it. Times are nanoseconds since the recorder was created.
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

    /// The procedure that added this one, and when.
    struct Link: Sendable, Equatable {
        let kind: LinkKind
        let parent: UInt64
        let at: UInt64
    }

    /// When the procedure was cancelled, and with which errors (described).
    struct Cancellation: Sendable, Equatable {
        let at: UInt64
        let errors: [String]
    }

    /// The recorder's number for the procedure; also its lane (`tid`).
    let id: UInt64
    let name: String
    /// The procedure's type name, the slice's `cat`.
    let category: String
    let queue: String?
    /// `true` when the recorder attached itself as the procedure was added to a queue.
    let attachedOnEnqueue: Bool
    let link: Link?
    let attachedAt: UInt64
    /// When it was about to execute; `nil` when it never executed.
    let startedAt: UInt64?
    let endedAt: UInt64
    /// The operating-system id of the thread `execute()` ran on.
    let thread: UInt64?
    let cancellation: Cancellation?
    let status: Status
    let errors: [String]
    /// The recorder's numbers of the dependencies it traced (flows end here)...
    let dependencies: [UInt64]
    /// ...and of the traced dependents that were traced before this procedure was (flows start here).
    let dependents: [UInt64]

    /// Where the slice begins: at `execute()`; for a procedure that never executed, when it was cancelled (or
    /// when it finished); for one still waiting when the trace was written, when it was attached.
    var beganAt: UInt64 {
        if let startedAt { return min(startedAt, endedAt) }
        if status == .unfinished { return min(attachedAt, endedAt) }
        if let cancellation { return min(max(cancellation.at, attachedAt), endedAt) }
        return endedAt
    }

    /// The most events this record writes: its lane's name, its slice, its attach instant, a cancel instant, and
    /// two events per flow it holds.
    var eventCount: Int {
        3 + (cancellation == nil ? 0 : 1) + 2 * (dependencies.count + dependents.count) + (link == nil ? 0 : 2)
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
