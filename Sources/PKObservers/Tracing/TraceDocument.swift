/// Writes trace records as Trace Event Format JSON: the object form, `{"traceEvents": [...], "displayTimeUnit":
/// "ms", "otherData": {...}}`.
///
/// The events, for one process (`pid`, the real process id):
/// - `M` `process_name` once, and `M` `thread_name` for each procedure's lane. Each procedure gets a synthetic
///   `tid` of its own (its record number), because procedures overlap freely in time and slices on one track must
///   nest; the real thread id is in the slice's `args.thread`.
/// - `X` per procedure: `name` its name, `cat` its type, `ts`/`dur` in microseconds (with nanosecond digits),
///   `args` its status, errors, queue, thread and record number.
/// - `i` (thread-scoped) instants: `enqueued` (or `attached`) and `cancelled`.
/// - v1 flows, `s` inside the source slice and `f` with `"bp":"e"` inside the destination slice, matched by `cat`,
///   `name` and `id`: `dependency` from each traced dependency, `child` from a group to its children, `produced`
///   from a procedure to the operations it produced. A flow whose source is not in the trace is left out.
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

    /// A flow's source slice and destination slice are entered this far (or halfway, if shorter), so each event
    /// falls strictly inside the slice it binds to even where slices touch.
    static let flowInset: UInt64 = 500

    func encoded() -> [UInt8] {
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
        var index: [UInt64: Int] = [:]
        index.reserveCapacity(records.count)
        for (position, record) in records.enumerated() { index[record.id] = position }

        var json = JSONText()
        json.bytes.reserveCapacity(records.count * 600 + 512)
        json.raw("{\"traceEvents\":[")
        var first = true
        func event(_ body: (inout JSONText) -> Void) {
            if !first { json.raw(",") }
            first = false
            json.raw("\n{")
            body(&json)
            json.raw("}")
        }
        let pid = processID
        event { json in
            json.raw("\"name\":\"process_name\",\"ph\":\"M\",\"pid\":\(pid),\"tid\":0,\"args\":{\"name\":")
            json.string(processName)
            json.raw("}")
        }
        var flowID = 0
        for record in records {
            event { json in
                json.raw(
                    "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":\(pid),\"tid\":\(record.id),\"args\":{\"name\":")
                json.string("\(record.name) #\(record.id)")
                json.raw("}")
            }
            event { json in writeSlice(record, into: &json) }
            event { json in
                json.raw("\"name\":\(record.attachedOnEnqueue ? "\"enqueued\"" : "\"attached\""),\"cat\":")
                json.string(record.category)
                json.raw(",\"ph\":\"i\",\"s\":\"t\",\"ts\":")
                json.microseconds(record.attachedAt)
                json.raw(",\"pid\":\(pid),\"tid\":\(record.id)")
            }
            if let cancellation = record.cancellation {
                event { json in
                    json.raw("\"name\":\"cancelled\",\"cat\":")
                    json.string(record.category)
                    json.raw(",\"ph\":\"i\",\"s\":\"t\",\"ts\":")
                    json.microseconds(cancellation.at)
                    json.raw(",\"pid\":\(pid),\"tid\":\(record.id),\"args\":{\"errors\":")
                    json.strings(cancellation.errors)
                    json.raw("}")
                }
            }
            var flows: [(name: String, source: TraceRecord, leavesAt: UInt64, destination: TraceRecord)] = []
            for dependency in record.dependencies {
                guard let position = index[dependency] else { continue }
                let source = records[position]
                flows.append(("dependency", source, Self.insideEnd(of: source), record))
            }
            for dependent in record.dependents {
                guard let position = index[dependent] else { continue }
                flows.append(("dependency", record, Self.insideEnd(of: record), records[position]))
            }
            if let link = record.link, let position = index[link.parent] {
                let source = records[position]
                flows.append((link.kind.rawValue, source, Self.inside(source, near: link.at), record))
            }
            for flow in flows {
                flowID += 1
                let id = flowID
                event { json in
                    json.raw("\"name\":\"\(flow.name)\",\"cat\":\"\(flow.name)\",\"ph\":\"s\",\"id\":\(id),\"ts\":")
                    json.microseconds(flow.leavesAt)
                    json.raw(",\"pid\":\(pid),\"tid\":\(flow.source.id)")
                }
                event { json in
                    json.raw(
                        "\"name\":\"\(flow.name)\",\"cat\":\"\(flow.name)\",\"ph\":\"f\",\"bp\":\"e\",\"id\":\(id),\"ts\":"
                    )
                    json.microseconds(Self.inside(flow.destination, near: flow.destination.beganAt))
                    json.raw(",\"pid\":\(pid),\"tid\":\(flow.destination.id)")
                }
            }
        }
        json.raw("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"recorder\":\"PKObservers.TraceRecorder\"")
        json.raw(",\"maximumEventCount\":\(maximumEventCount),\"droppedEvents\":\(dropped.events)")
        json.raw(",\"droppedProcedures\":\(dropped.procedures),\"unfinishedProcedures\":\(unfinished.count)}}\n")
        return json.bytes
    }

    private func writeSlice(_ record: TraceRecord, into json: inout JSONText) {
        let begin = record.beganAt
        json.raw("\"name\":")
        json.string(record.name)
        json.raw(",\"cat\":")
        json.string(record.category)
        json.raw(",\"ph\":\"X\",\"ts\":")
        json.microseconds(begin)
        json.raw(",\"dur\":")
        json.microseconds(record.endedAt - begin)
        json.raw(",\"pid\":\(processID),\"tid\":\(record.id),\"args\":{\"status\":\"\(record.status.rawValue)\"")
        json.raw(",\"procedure\":\(record.id)")
        if !record.errors.isEmpty {
            json.raw(",\"errors\":")
            json.strings(record.errors)
        }
        if let queue = record.queue {
            json.raw(",\"queue\":")
            json.string(queue)
        }
        if let thread = record.thread {
            json.raw(",\"thread\":\(thread)")
        }
        if record.startedAt == nil && record.status != .unfinished {
            json.raw(",\"executed\":false")
        }
        json.raw("}")
    }

    /// A time inside `record`'s slice, as close to its end as the inset allows.
    static func insideEnd(of record: TraceRecord) -> UInt64 {
        let begin = record.beganAt
        return record.endedAt - min((record.endedAt - begin) / 2, flowInset)
    }

    /// `time`, moved inside `record`'s slice (at least the inset, or halfway, from either end).
    static func inside(_ record: TraceRecord, near time: UInt64) -> UInt64 {
        let begin = record.beganAt
        let inset = min((record.endedAt - begin) / 2, flowInset)
        return min(max(time, begin + inset), record.endedAt - inset)
    }
}

/// A growing UTF-8 JSON text, with just what the trace writer needs.
struct JSONText {
    var bytes: [UInt8] = []

    /// Appends `text` as it is (it must be valid JSON in place).
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an array of JSON strings.
    mutating func strings(_ texts: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (position, text) in texts.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            string(text)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends `nanoseconds` as a number of microseconds with three decimals (exact, no floating point).
    mutating func microseconds(_ nanoseconds: UInt64) {
        raw(String(nanoseconds / 1000))
        let fraction = nanoseconds % 1000
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}
