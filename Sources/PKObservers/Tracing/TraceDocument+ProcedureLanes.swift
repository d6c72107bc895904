extension TraceDocument {

    /// Writes a lane per procedure (``TraceRecorder/Lanes/perProcedure``). Procedures overlap freely in time, and
    /// slices on one track must nest, so each procedure's lane is a synthetic thread: `tid` its number, named after
    /// it (a viewer shows the name followed by the number). On it, in this order in the file:
    /// - its slice, from ``TraceTimeline/spans``;
    /// - the finishes of the arrows reaching it and the starts of the dependency arrows leaving it, all at the slice's
    ///   beginning, where nothing else on the lane can have begun;
    /// - a zero-length mark for each procedure it added (`add <name>` for a group's child, `produce <name>`),
    ///   each followed by the start of the arrow to that procedure;
    /// - the `enqueued` (or `attached`) and `cancelled` instants, last, so that at an equal time they come after
    ///   the flow events and cannot take their binding.
    func writeProcedureLanes(_ timeline: TraceTimeline, into events: inout EventWriter) {
        for position in timeline.writingOrder {
            let record = timeline.records[position]
            let span = timeline.spans[position]
            let lane = record.id
            events.laneName(record.name, lane: lane)
            let stillRunning = timeline.dependenciesStillRunning[position]
            events.slice(record.name, category: record.category, lane: lane, from: span.begin, to: span.end) {
                record.writeArguments(into: &$0, stillRunning: stillRunning)
            }
            for flow in timeline.incoming[position] {
                events.flowFinish(.dependency, id: Self.flowID(dependency: flow), lane: lane, at: span.begin)
            }
            if let mark = timeline.addedBy[position], timeline.marks[mark].arrow {
                events.flowFinish(
                    timeline.marks[mark].kind, id: Self.flowID(mark: mark, in: timeline), lane: lane, at: span.begin)
            }
            for flow in timeline.outgoing[position] {
                events.flowStart(.dependency, id: Self.flowID(dependency: flow), lane: lane, at: span.begin)
            }
            for position in timeline.marksMade[position] {
                let mark = timeline.marks[position]
                let child = timeline.records[mark.child]
                let verb = mark.kind == .child ? "add" : "produce"
                events.slice(
                    "\(verb) \(child.name)", category: mark.kind.rawValue, lane: lane, from: mark.at, to: mark.at
                ) {
                    $0.raw("\"procedure\":\(child.id)")
                }
                if mark.arrow {
                    events.flowStart(mark.kind, id: Self.flowID(mark: position, in: timeline), lane: lane, at: mark.at)
                }
            }
            events.instant(
                record.attachedOnEnqueue ? "enqueued" : "attached", category: record.category, lane: lane,
                at: record.attachedAt)
            if let cancellation = record.cancellation {
                events.instant("cancelled", category: record.category, lane: lane, at: cancellation.at) {
                    $0.raw("\"errors\":")
                    $0.strings(cancellation.errors)
                }
            }
        }
    }
}
