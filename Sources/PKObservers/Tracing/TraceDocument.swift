/// Writes trace records as Trace Event Format JSON: the object form, `{"traceEvents": [...], "displayTimeUnit":
/// "ms", "otherData": {...}}`, for one process (`pid`, the real process id, named by an `M` `process_name` event).
///
/// What is drawn is decided by a ``TraceTimeline``; how it is laid out in lanes by
/// ``TraceRecorder/Lanes`` (``writeProcedureLanes(_:into:)``, ``writeThreadLanes(_:into:)``). Either way the file
/// follows the rules Perfetto's JSON importer applies (`src/trace_processor/importers/json/` and its slice and flow
/// trackers; LINUX-NOTES §4):
/// - Slices (`X`, `ts`/`dur` in microseconds with nanosecond digits) on one track nest or are disjoint; a slice
///   crossing the end of another is dropped or moved to an overflow track.
/// - Events are sorted by time; at equal times, slices with a duration come first (longest first), then everything
///   else in file order.
/// - A v1 flow's start (`s`) and finish (`f`, with `"bp":"e"`) each bind to the innermost slice open on their track
///   when they are read: the last slice begun there that no later slice's beginning has closed (a flow event closes
///   nothing, and a thread-scoped instant is a zero-length slice that can be that last one). So every flow event is
///   written at its slice's beginning, right after the slice in the file, before any instant or mark of the lane.
/// - A finish read before its start is dropped (`flow_end_without_start`); so a flow's start is never later than
///   its finish, and where they are equal it comes first in the file.
///
/// At most `maximumEventCount` events are written: the finished records were kept within that budget less one
/// (the process name); unfinished records are added while they fit, and the rest are counted as dropped.
struct TraceDocument {
    let processName: String
    let processID: UInt64
    let maximumEventCount: Int
    let finished: [TraceRecord]
    let unfinished: [TraceRecord]
    let droppedEvents: Int
    let droppedProcedures: Int

    func encoded(lanes: TraceRecorder.Lanes = .perProcedure) -> [UInt8] {
        var records = finished
        var budget = maximumEventCount - 1 - finished.reduce(0) { $0 + $1.eventCount }
        var dropped = (events: droppedEvents, procedures: droppedProcedures)
        for record in unfinished {
            if record.eventCount <= budget {
                records.append(record)
                budget -= record.eventCount
            } else {
                dropped.events += record.eventCount
                dropped.procedures += 1
            }
        }
        let timeline = TraceTimeline(records: records)

        var events = EventWriter(processID: processID)
        events.json.bytes.reserveCapacity(records.count * 600 + 512)
        events.json.raw("{\"traceEvents\":[")
        events.begin()
        events.json.raw("\"name\":\"process_name\",\"ph\":\"M\",\"pid\":\(processID),\"tid\":0,\"args\":{\"name\":")
        events.json.string(processName)
        events.json.raw("}")
        events.end()
        switch lanes {
        case .perProcedure: writeProcedureLanes(timeline, into: &events)
        case .perThread: writeThreadLanes(timeline, into: &events)
        }
        events.json.raw("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"recorder\":\"PKObservers.TraceRecorder\"")
        events.json.raw(",\"lanes\":\"\(lanes == .perProcedure ? "perProcedure" : "perThread")\"")
        events.json.raw(",\"maximumEventCount\":\(maximumEventCount),\"droppedEvents\":\(dropped.events)")
        events.json.raw(",\"droppedProcedures\":\(dropped.procedures),\"unfinishedProcedures\":\(unfinished.count)}}\n")
        return events.json.bytes
    }

    /// The number a flow has in the file: dependency flows first, then the arrows from marks.
    static func flowID(dependency position: Int) -> Int { position + 1 }
    static func flowID(mark position: Int, in timeline: TraceTimeline) -> Int {
        timeline.dependencyFlows.count + position + 1
    }
}

/// Writes the trace's events one after another into its JSON text: the fields every event kind needs.
struct EventWriter {
    var json = JSONText()
    let processID: UInt64
    private var first = true

    init(processID: UInt64) {
        self.processID = processID
    }

    /// Opens an event: `{` after a separator.
    mutating func begin() {
        if !first { json.raw(",") }
        first = false
        json.raw("\n{")
    }

    mutating func end() {
        json.raw("}")
    }

    /// A lane's name (`M` `thread_name`).
    mutating func laneName(_ name: String, lane: UInt64) {
        begin()
        json.raw("\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":\(processID),\"tid\":\(lane),\"args\":{\"name\":")
        json.string(name)
        json.raw("}")
        end()
    }

    /// A complete slice (`X`); `arguments` writes the members of its `args` object after `"args":{`.
    mutating func slice(
        _ name: String, category: String, lane: UInt64, from begin: UInt64, to end: UInt64,
        arguments: (inout JSONText) -> Void
    ) {
        self.begin()
        json.raw("\"name\":")
        json.string(name)
        json.raw(",\"cat\":")
        json.string(category)
        json.raw(",\"ph\":\"X\",\"ts\":")
        json.microseconds(begin)
        json.raw(",\"dur\":")
        json.microseconds(end - begin)
        json.raw(",\"pid\":\(processID),\"tid\":\(lane),\"args\":{")
        arguments(&json)
        json.raw("}")
        self.end()
    }

    /// A thread-scoped instant (`i`, `"s":"t"`); `arguments`, when given, writes the members of its `args`.
    mutating func instant(
        _ name: String, category: String, lane: UInt64, at time: UInt64, arguments: ((inout JSONText) -> Void)? = nil
    ) {
        begin()
        json.raw("\"name\":\"\(name)\",\"cat\":")
        json.string(category)
        json.raw(",\"ph\":\"i\",\"s\":\"t\",\"ts\":")
        json.microseconds(time)
        json.raw(",\"pid\":\(processID),\"tid\":\(lane)")
        if let arguments {
            json.raw(",\"args\":{")
            arguments(&json)
            json.raw("}")
        }
        end()
    }

    /// A v1 flow's start (`s`), bound to the slice open on `lane` at `time`.
    mutating func flowStart(_ kind: TraceTimeline.FlowKind, id: Int, lane: UInt64, at time: UInt64) {
        begin()
        json.raw("\"name\":\"\(kind.rawValue)\",\"cat\":\"\(kind.rawValue)\",\"ph\":\"s\",\"id\":\(id),\"ts\":")
        json.microseconds(time)
        json.raw(",\"pid\":\(processID),\"tid\":\(lane)")
        end()
    }

    /// A v1 flow's finish (`f`, `"bp":"e"`: bound to the slice enclosing it, not the next one to begin).
    mutating func flowFinish(_ kind: TraceTimeline.FlowKind, id: Int, lane: UInt64, at time: UInt64) {
        begin()
        json.raw(
            "\"name\":\"\(kind.rawValue)\",\"cat\":\"\(kind.rawValue)\",\"ph\":\"f\",\"bp\":\"e\",\"id\":\(id),\"ts\":")
        json.microseconds(time)
        json.raw(",\"pid\":\(processID),\"tid\":\(lane)")
        end()
    }
}

extension TraceRecord {
    /// Writes the members of a procedure slice's `args`: status, number, errors, queue, execute thread, whether it
    /// executed, and `extra`.
    func writeArguments(into json: inout JSONText, stillRunning: [UInt64]?, extra: String? = nil) {
        json.raw("\"status\":\"\(status.rawValue)\",\"procedure\":\(id)")
        if !errors.isEmpty {
            json.raw(",\"errors\":")
            json.strings(errors)
        }
        if let queue {
            json.raw(",\"queue\":")
            json.string(queue)
        }
        if let thread {
            json.raw(",\"thread\":\(thread)")
        }
        if !executed && status != .unfinished {
            json.raw(",\"executed\":false")
        }
        if let stillRunning {
            json.raw(",\"dependenciesStillRunning\":[\(stillRunning.map(String.init).joined(separator: ","))]")
        }
        if let extra { json.raw(extra) }
    }
}
