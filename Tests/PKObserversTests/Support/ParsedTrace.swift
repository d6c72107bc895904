import Foundation
import Testing

/// A Trace Event Format file read back with `JSONSerialization`, for checking what a `TraceRecorder` wrote.
struct ParsedTrace {

    /// One event: the fields the recorder writes, typed; the rest of `args` as parsed.
    struct Event {
        let ph: String
        let name: String
        let cat: String?
        let ts: Double?
        let dur: Double?
        let pid: Int?
        let tid: Int?
        let id: Int?
        let bp: String?
        let scope: String?
        let args: [String: Any]

        var end: Double? { ts.flatMap { ts in dur.map { ts + $0 } } }
        /// `ts`, and `ts + dur`, in whole nanoseconds: the file's precision. Compare these rather than the `Double`s:
        /// `ts + dur` as a `Double` may round above a later slice's equal `ts` (129997.199 against
        /// 129997.19900000001).
        var beginNanoseconds: Int64? { ts.map { Int64(($0 * 1000).rounded()) } }
        var endNanoseconds: Int64? {
            guard let ts, let dur else { return nil }
            return Int64((ts * 1000).rounded()) + Int64((dur * 1000).rounded())
        }
        var status: String? { args["status"] as? String }
        var errors: [String]? { args["errors"] as? [String] }
    }

    let events: [Event]
    let otherData: [String: Any]
    let displayTimeUnit: String?

    /// Parses `data`; records an issue and returns `nil` when it is not the object form of the format.
    init?(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let raw = object["traceEvents"] as? [[String: Any]]
        else {
            Issue.record(
                "not a Trace Event Format object: \(String(decoding: data.prefix(200), as: UTF8.self))",
                sourceLocation: sourceLocation)
            return nil
        }
        events = raw.map { event in
            Event(
                ph: event["ph"] as? String ?? "", name: event["name"] as? String ?? "", cat: event["cat"] as? String,
                ts: (event["ts"] as? NSNumber)?.doubleValue, dur: (event["dur"] as? NSNumber)?.doubleValue,
                pid: (event["pid"] as? NSNumber)?.intValue, tid: (event["tid"] as? NSNumber)?.intValue,
                id: (event["id"] as? NSNumber)?.intValue, bp: event["bp"] as? String, scope: event["s"] as? String,
                args: event["args"] as? [String: Any] ?? [:])
        }
        otherData = object["otherData"] as? [String: Any] ?? [:]
        displayTimeUnit = object["displayTimeUnit"] as? String
    }

    func phase(_ ph: String) -> [Event] { events.filter { $0.ph == ph } }

    /// The complete (`X`) slices.
    var slices: [Event] { phase("X") }

    /// The slice named `name` (the first, if several).
    func slice(_ name: String) -> Event? { slices.first { $0.name == name } }

    /// The lane (`tid`) of the slice named `name`.
    func lane(_ name: String) -> Int? { slice(name)?.tid }

    /// `(start, finish)` pairs of the flows named `name`, matched by `id`.
    func flows(_ name: String) -> [(start: Event, finish: Event)] {
        let finishes = Dictionary(grouping: phase("f").filter { $0.name == name }, by: \.id)
        return phase("s").filter { $0.name == name }.compactMap { start in
            finishes[start.id]?.first.map { (start, $0) }
        }
    }

    /// The lanes each flow named `name` links, as `(from, to)` pairs.
    func links(_ name: String) -> [(from: Int?, to: Int?)] {
        flows(name).map { ($0.start.tid, $0.finish.tid) }
    }

    func otherNumber(_ key: String) -> Int? { (otherData[key] as? NSNumber)?.intValue }

    /// Everything the format and the recorder promise about the file's structure; an empty list when it holds.
    var structuralProblems: [String] {
        var problems: [String] = []
        let pids = Set(events.compactMap(\.pid))
        if pids.count != 1 { problems.append("expected one pid, found \(pids)") }
        if phase("M").filter({ $0.name == "process_name" }).count != 1 { problems.append("no single process_name") }
        let namedLanes = Set(phase("M").filter { $0.name == "thread_name" }.compactMap(\.tid))
        if namedLanes.count != phase("M").filter({ $0.name == "thread_name" }).count {
            problems.append("a lane is named twice")
        }
        let slicesByLane = Dictionary(grouping: slices, by: { $0.tid ?? -1 })
        for slice in slices {
            guard let ts = slice.ts, let dur = slice.dur else {
                problems.append("slice \(slice.name) lacks ts or dur")
                continue
            }
            if dur < 0 { problems.append("slice \(slice.name) has a negative duration") }
            if ts < 0 { problems.append("slice \(slice.name) begins before the trace") }
            if slice.cat == nil { problems.append("slice \(slice.name) has no category") }
            if slice.status == nil { problems.append("slice \(slice.name) has no status") }
        }
        for (lane, slices) in slicesByLane where slices.count != 1 {
            problems.append("lane \(lane) holds \(slices.count) slices")
        }
        for event in events where event.ph != "M" || event.name == "thread_name" {
            guard let tid = event.tid else {
                problems.append("\(event.ph) \(event.name) has no tid")
                continue
            }
            if !namedLanes.contains(tid) { problems.append("lane \(tid) of \(event.ph) \(event.name) has no name") }
        }
        for instant in phase("i") where instant.scope != "t" {
            problems.append("instant \(instant.name) is not thread-scoped")
        }
        let starts = phase("s")
        let finishes = phase("f")
        if Set(starts.compactMap(\.id)).count != starts.count { problems.append("a flow id starts twice") }
        for start in starts {
            let matching = finishes.filter { $0.id == start.id }
            guard matching.count == 1, let finish = matching.first else {
                problems.append("flow \(start.id ?? -1) has \(matching.count) finishes")
                continue
            }
            if finish.cat != start.cat || finish.name != start.name {
                problems.append("flow \(start.id ?? -1) changes cat or name")
            }
            if finish.bp != "e" {
                problems.append("flow \(start.id ?? -1) finish does not bind to its enclosing slice")
            }
            for (event, role) in [(start, "start"), (finish, "finish")] {
                guard let slice = slicesByLane[event.tid ?? -1]?.first, let ts = event.ts, let begin = slice.ts,
                    let end = slice.end
                else {
                    problems.append("flow \(start.id ?? -1) \(role) is on a lane without a slice")
                    continue
                }
                if ts < begin || ts > end {
                    problems.append("flow \(start.id ?? -1) \(role) at \(ts) is outside [\(begin), \(end)]")
                }
            }
        }
        for finish in finishes where !starts.contains(where: { $0.id == finish.id }) {
            problems.append("flow \(finish.id ?? -1) finishes without starting")
        }
        return problems
    }
}
