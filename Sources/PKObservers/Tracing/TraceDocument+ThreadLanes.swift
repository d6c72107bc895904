extension TraceDocument {

    /// One slice on a thread's lane, and its part in the procedure it belongs to.
    private struct ThreadSlice {
        enum Part: String {
            /// A procedure that finished on its `execute()` thread before that thread started another: its whole run.
            case whole
            /// Where a procedure that finished elsewhere (or later) started: zero length.
            case start
            /// Where it finished: zero length.
            case finish
            /// Where a procedure added another: zero length.
            case mark
        }

        let lane: UInt64
        let begin: UInt64
        let end: UInt64
        let record: Int
        let part: Part
        /// For a mark, its index in ``TraceTimeline/marks``.
        var mark: Int? = nil
    }

    /// Writes a lane per operating-system thread (``TraceRecorder/Lanes/perThread``), so that what ran in parallel
    /// shows as parallel lanes.
    ///
    /// Slices on one thread's lane must nest, and a procedure's run is one stretch of one thread only when it
    /// finished there before the thread started another (``TraceRecord/finishedInPlace``): then it is a slice from
    /// start to finish. Any other procedure (one whose `execute()` returned and which finished later, on whichever
    /// thread finished it) is a zero-length mark where it started and one where it finished; so is a whole run that
    /// would still cross another slice on its thread. A procedure that never executed is a mark where it finished,
    /// and one still waiting is not drawn. Marks of added procedures sit on the thread that added them. Arrows are
    /// those of ``TraceTimeline``, leaving the end of a dependency's run (or its finish mark) and reaching the start
    /// of a dependent's.
    ///
    /// Async events (`b`/`e`, each on a track of its own, so nesting would not matter) were the alternative, but a
    /// v1 flow binds only to a thread's slices, and a v2 flow (`bind_id`) allows one arrow per event.
    func writeThreadLanes(_ timeline: TraceTimeline, into events: inout EventWriter) {
        var slices = threadSlices(timeline)
        demoteCrossingRuns(&slices, timeline)

        // Which slice each arrow leaves and reaches.
        var startOf = [Int?](repeating: nil, count: timeline.records.count)
        var finishOf = [Int?](repeating: nil, count: timeline.records.count)
        var markSlice = [Int: Int]()
        for (position, slice) in slices.enumerated() {
            switch slice.part {
            case .whole:
                startOf[slice.record] = position
                finishOf[slice.record] = position
            case .start:
                startOf[slice.record] = position
            case .finish:
                finishOf[slice.record] = position
                if startOf[slice.record] == nil { startOf[slice.record] = position }
            case .mark:
                if let mark = slice.mark { markSlice[mark] = position }
            }
        }
        // A never-executed procedure's start is its finish mark; set again in case the mark came first.
        for position in startOf.indices where startOf[position] == nil { startOf[position] = finishOf[position] }

        typealias FlowEnd = (kind: TraceTimeline.FlowKind, id: Int)
        var starts = [[FlowEnd]](repeating: [], count: slices.count)
        var finishes: [(slice: Int, flow: FlowEnd)] = []
        for (position, flow) in timeline.dependencyFlows.enumerated() {
            guard let source = finishOf[flow.source], let destination = startOf[flow.destination] else { continue }
            let end: FlowEnd = (.dependency, Self.flowID(dependency: position))
            starts[source].append(end)
            finishes.append((destination, end))
        }
        for (position, mark) in timeline.marks.enumerated() where mark.arrow {
            guard let source = markSlice[position], let destination = startOf[mark.child] else { continue }
            let end: FlowEnd = (mark.kind, Self.flowID(mark: position, in: timeline))
            starts[source].append(end)
            finishes.append((destination, end))
        }

        // In the order a viewer reads them: by time; at one time, slices with a duration (longest first), then
        // zero-length slices, each followed by the flows leaving it, then the flows' finishes.
        enum Item {
            case slice(Int)
            case finish(slice: Int, flow: FlowEnd)
        }
        func key(_ item: Item) -> (UInt64, Int, UInt64, Int) {
            switch item {
            case .slice(let position):
                let slice = slices[position]
                let length = slice.end - slice.begin
                return (slice.begin, length > 0 ? 0 : 1, UInt64.max - length, position)
            case .finish(let position, _):
                return (slices[position].begin, 2, 0, position)
            }
        }
        var items = slices.indices.map { Item.slice($0) }
        items += finishes.map { Item.finish(slice: $0.slice, flow: $0.flow) }
        items.sort { key($0) < key($1) }

        for item in items {
            switch item {
            case .slice(let position):
                let slice = slices[position]
                let record = timeline.records[slice.record]
                if slice.part == .mark, let mark = slice.mark {
                    let verb = timeline.marks[mark].kind == .child ? "add" : "produce"
                    events.slice(
                        "\(verb) \(record.name)", category: timeline.marks[mark].kind.rawValue, lane: slice.lane,
                        from: slice.begin, to: slice.end
                    ) { $0.raw("\"procedure\":\(record.id)") }
                } else {
                    let stillRunning = timeline.dependenciesStillRunning[slice.record]
                    events.slice(
                        record.name, category: record.category, lane: slice.lane, from: slice.begin, to: slice.end
                    ) {
                        record.writeArguments(
                            into: &$0, stillRunning: stillRunning, extra: ",\"part\":\"\(slice.part.rawValue)\"")
                    }
                }
                for flow in starts[position] {
                    events.flowStart(flow.kind, id: flow.id, lane: slice.lane, at: slice.begin)
                }
            case .finish(let position, let flow):
                events.flowFinish(flow.kind, id: flow.id, lane: slices[position].lane, at: slices[position].begin)
            }
        }
    }

    /// The slices each record would draw on the threads, before nesting is checked.
    private func threadSlices(_ timeline: TraceTimeline) -> [ThreadSlice] {
        var slices: [ThreadSlice] = []
        for (position, record) in timeline.records.enumerated() {
            let span = timeline.spans[position]
            let finished = record.status != .unfinished
            if let thread = record.thread, record.executed {
                if finished && record.finishedInPlace {
                    slices.append(
                        ThreadSlice(lane: thread, begin: span.begin, end: span.end, record: position, part: .whole))
                    continue
                }
                slices.append(
                    ThreadSlice(lane: thread, begin: span.begin, end: span.begin, record: position, part: .start))
            }
            if finished, let thread = record.finishThread {
                slices.append(
                    ThreadSlice(lane: thread, begin: span.end, end: span.end, record: position, part: .finish))
            }
        }
        for (position, mark) in timeline.marks.enumerated() {
            slices.append(
                ThreadSlice(
                    lane: mark.thread, begin: mark.at, end: mark.at, record: mark.child, part: .mark, mark: position))
        }
        return slices
    }

    /// Turns each whole run that would cross the end of another slice on its thread into a start and a finish mark.
    /// Marks have no length, so they never cross anything.
    private func demoteCrossingRuns(_ slices: inout [ThreadSlice], _ timeline: TraceTimeline) {
        let runs = slices.indices.filter { slices[$0].end > slices[$0].begin }
        let byLane = Dictionary(grouping: runs, by: { slices[$0].lane })
        var crossing: [Int] = []
        for (_, lane) in byLane {
            let ordered = lane.sorted { left, right in
                let (a, b) = (slices[left], slices[right])
                return a.begin != b.begin ? a.begin < b.begin : a.end > b.end
            }
            var open: [Int] = []
            for position in ordered {
                let slice = slices[position]
                while let top = open.last, slices[top].end <= slice.begin { open.removeLast() }
                if let top = open.last, slice.end > slices[top].end {
                    crossing.append(position)
                } else {
                    open.append(position)
                }
            }
        }
        for position in crossing {
            let run = slices[position]
            let record = timeline.records[run.record]
            slices[position] = ThreadSlice(
                lane: run.lane, begin: run.begin, end: run.begin, record: run.record, part: .start)
            slices.append(
                ThreadSlice(
                    lane: record.finishThread ?? run.lane, begin: run.end, end: run.end, record: run.record,
                    part: .finish))
        }
    }
}
