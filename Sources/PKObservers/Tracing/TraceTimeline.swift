/// What a trace draws for its records, decided from all of them at once when the file is written: where each
/// procedure's slice begins and ends, where the marks of the procedures it added sit, and which arrows can be drawn.
///
/// A viewer draws an arrow from the end of the slice its flow leaves to the start of the slice it reaches, and drops a
/// flow whose finish comes before its start; so every arrow here goes forwards in time. The rules:
/// - An executed procedure's slice runs from its start to its finish.
/// - A dependency tells its dependents that it finished before its DidFinish event, where its end is recorded, so a
///   dependent can start a few microseconds before that end. A dependent that executed had waited for it: the
///   dependency's slice ends no later than that dependent's start. Likewise for a dependent that finished without
///   executing after the dependency began to finish (its WillFinish event, when known): its finish bounds the end.
/// - A procedure that never executed did nothing but finish: its slice begins when it was cancelled (or attached, if
///   later), or when the last dependency it outlived ended, if later still, and ends when it finished. One still
///   waiting when the trace is written begins when it was attached.
/// - A dependency arrow is drawn when the dependency's slice ends no later than its dependent's begins. A dependency
///   the procedure did not wait for (it was cancelled and finished first, or it is still waiting) is not drawn but
///   listed in the dependent's arguments.
/// - The procedure that added another (a group, a producer) gets a zero-length mark on its lane at that moment,
///   inside its slice; the arrow leaves the mark, so it never starts later than the added procedure does.
struct TraceTimeline {

    /// Where a slice is drawn: from `begin` to `end`, nanoseconds since the recorder was created.
    struct Span: Equatable {
        var begin: UInt64
        var end: UInt64
    }

    /// An arrow's name and category in the file.
    enum FlowKind: String {
        case dependency
        case child
        case produced
    }

    /// A dependency arrow that can be drawn: from record `source` to record `destination` (indices into
    /// ``records``).
    struct DependencyFlow: Equatable {
        let source: Int
        let destination: Int
    }

    /// The moment the record `parent` added the record `child`, drawn on the parent's lane (inside its slice) and on
    /// the thread that added it; `arrow` when the arrow from it to the child's slice goes forwards.
    struct Mark: Equatable {
        let parent: Int
        let child: Int
        let kind: FlowKind
        let at: UInt64
        let thread: UInt64
        let arrow: Bool
    }

    let records: [TraceRecord]
    /// Each record's slice, by index.
    let spans: [Span]
    let dependencyFlows: [DependencyFlow]
    let marks: [Mark]
    /// Per record, the numbers of the traced dependencies whose arrow is not drawn (see the type's rules).
    let dependenciesStillRunning: [Int: [UInt64]]
    /// The indices of the records in the order their lanes are written: by slice begin; where begins are equal, a
    /// record an arrow leaves (a dependency, a parent's mark) before the records it reaches, then the longer slice
    /// first, then by number. A viewer reads flow events at equal times in file order, so a flow's start must come
    /// before its finish even when a clock that did not move (a test's manual clock) gives them the same time.
    let writingOrder: [Int]

    /// Per record, the indices into ``dependencyFlows`` that leave it and that reach it.
    let outgoing: [[Int]]
    let incoming: [[Int]]
    /// Per record, the indices into ``marks`` it made (as the parent), and the mark that added it, if any.
    let marksMade: [[Int]]
    let addedBy: [Int?]

    init(records: [TraceRecord]) {
        self.records = records
        var index: [UInt64: Int] = [:]
        index.reserveCapacity(records.count)
        for (position, record) in records.enumerated() { index[record.id] = position }

        // Every traced dependency pair, whichever side recorded it.
        var pairs: [DependencyFlow] = []
        for (position, record) in records.enumerated() {
            for dependency in record.dependencies {
                if let source = index[dependency] {
                    pairs.append(DependencyFlow(source: source, destination: position))
                }
            }
            for dependent in record.dependents {
                if let destination = index[dependent] {
                    pairs.append(DependencyFlow(source: position, destination: destination))
                }
            }
        }

        // Ends: a dependency ended by the time a dependent that followed it began.
        var spans = records.map { Span(begin: Self.ownBegin(of: $0), end: $0.endedAt) }
        for pair in pairs {
            let dependency = records[pair.source]
            let dependent = records[pair.destination]
            let followedAt: UInt64?
            if dependent.executed {
                followedAt = dependent.startedAt ?? dependent.attachedAt
            } else if dependent.status != .unfinished, dependent.endedAt >= dependency.finishingAt ?? dependency.endedAt
            {
                followedAt = dependent.endedAt
            } else {
                followedAt = nil
            }
            if let followedAt, followedAt < spans[pair.source].end { spans[pair.source].end = followedAt }
        }
        // Begins: a procedure that never executed begins once the dependencies it outlived had ended.
        for pair in pairs {
            let dependent = records[pair.destination]
            guard !dependent.executed, dependent.status != .unfinished else { continue }
            let ended = spans[pair.source].end
            if ended <= dependent.endedAt, ended > spans[pair.destination].begin {
                spans[pair.destination].begin = ended
            }
        }
        for position in spans.indices where spans[position].end < spans[position].begin {
            spans[position].end = spans[position].begin
        }

        var flows: [DependencyFlow] = []
        var stillRunning: [Int: [UInt64]] = [:]
        for pair in pairs {
            if spans[pair.source].end <= spans[pair.destination].begin {
                flows.append(pair)
            } else {
                stillRunning[pair.destination, default: []].append(records[pair.source].id)
            }
        }

        var marks: [Mark] = []
        for (position, record) in records.enumerated() {
            guard let link = record.link, let parent = index[link.parent] else { continue }
            let at = min(max(link.at, spans[parent].begin), spans[parent].end)
            marks.append(
                Mark(
                    parent: parent, child: position, kind: link.kind == .child ? .child : .produced, at: at,
                    thread: link.thread, arrow: at <= spans[position].begin))
        }

        self.spans = spans
        dependencyFlows = flows
        self.marks = marks
        dependenciesStillRunning = stillRunning
        let rank = Self.ranks(
            count: records.count,
            edges: flows.map { ($0.source, $0.destination) }
                + marks.map {
                    ($0.parent, $0.child)
                })
        writingOrder = spans.indices.sorted { left, right in
            let (a, b) = (spans[left], spans[right])
            if a.begin != b.begin { return a.begin < b.begin }
            if rank[left] != rank[right] { return rank[left] < rank[right] }
            if a.end != b.end { return a.end > b.end }
            return records[left].id < records[right].id
        }
        var outgoing = [[Int]](repeating: [], count: records.count)
        var incoming = [[Int]](repeating: [], count: records.count)
        for (position, flow) in flows.enumerated() {
            outgoing[flow.source].append(position)
            incoming[flow.destination].append(position)
        }
        var marksMade = [[Int]](repeating: [], count: records.count)
        var addedBy = [Int?](repeating: nil, count: records.count)
        for (position, mark) in marks.enumerated() {
            marksMade[mark.parent].append(position)
            addedBy[mark.child] = position
        }
        for parent in marksMade.indices where marksMade[parent].count > 1 {
            marksMade[parent].sort { marks[$0].at < marks[$1].at }
        }
        self.outgoing = outgoing
        self.incoming = incoming
        self.marksMade = marksMade
        self.addedBy = addedBy
    }

    /// Each record's depth along the arrows (`edges`, source to destination): 0 for a record no arrow reaches,
    /// otherwise one more than the deepest record an arrow to it leaves. Arrows never form a cycle (dependencies and
    /// additions do not); a cycle, if one slipped in, is cut rather than looped on.
    static func ranks(count: Int, edges: [(Int, Int)]) -> [Int] {
        var outgoing = [[Int]](repeating: [], count: count)
        var incoming = [Int](repeating: 0, count: count)
        for (source, destination) in edges where source != destination {
            outgoing[source].append(destination)
            incoming[destination] += 1
        }
        var rank = [Int](repeating: 0, count: count)
        var ready = (0..<count).filter { incoming[$0] == 0 }
        while let node = ready.popLast() {
            for next in outgoing[node] {
                rank[next] = max(rank[next], rank[node] + 1)
                incoming[next] -= 1
                if incoming[next] == 0 { ready.append(next) }
            }
        }
        return rank
    }

    /// Where a record's slice begins before other records are considered: its start; for one that never executed,
    /// its cancellation (or attachment, if later; its finish if it was not cancelled); for one still waiting, its
    /// attachment.
    static func ownBegin(of record: TraceRecord) -> UInt64 {
        let begin: UInt64
        if record.executed {
            begin = record.startedAt ?? record.attachedAt
        } else if record.status == .unfinished {
            begin = record.attachedAt
        } else if let cancellation = record.cancellation {
            begin = max(cancellation.at, record.attachedAt)
        } else {
            begin = record.endedAt
        }
        return min(begin, record.endedAt)
    }
}
