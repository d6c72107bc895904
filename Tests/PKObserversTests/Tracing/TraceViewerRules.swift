import Foundation

/// A trace file read the way Perfetto's JSON importer reads it (`src/trace_processor/importers/json/`, its slice
/// and flow trackers, and the UI's flow renderer), for checking what a viewer will draw.
///
/// The importer sorts events by time; at equal times `X` slices with a duration come first (longest first), then
/// everything else in file order. Each thread track keeps a stack of open slices: a slice beginning closes those
/// that ended before it (or at its start, unless both have no length), and is dropped if it begins inside one and
/// ends after it. A thread-scoped instant is a slice of no length. A flow's `s`, and its `f` with `"bp":"e"`, bind
/// to the top of their track's stack when read (a flow event closes nothing); an `f` read before its `s` is dropped.
/// The UI draws an arrow from the end of the slice the flow leaves to the start of the slice it reaches.
struct ViewerModel {

    /// A slice as the importer keeps it.
    struct Slice {
        let event: Int
        let name: String
        let lane: Int
        let begin: Int64
        let end: Int64
        let isInstant: Bool
    }

    /// A flow as the importer pairs it, with the slices it binds.
    struct Flow {
        let id: Int
        let name: String
        let start: ParsedTrace.Event
        let finish: ParsedTrace.Event
        let source: Slice
        let destination: Slice
    }

    private(set) var slices: [Slice] = []
    private(set) var flows: [Flow] = []
    /// Everything the importer would drop or count as an error, and everything a reader would see drawn wrong.
    private(set) var problems: [String] = []

    init(_ trace: ParsedTrace) {
        func nanoseconds(_ microseconds: Double?) -> Int64 { Int64(((microseconds ?? 0) * 1000).rounded()) }
        let ordered = trace.events.indices.filter { trace.events[$0].ph != "M" }.sorted { left, right in
            let (a, b) = (trace.events[left], trace.events[right])
            let (aTime, bTime) = (nanoseconds(a.ts), nanoseconds(b.ts))
            if aTime != bTime { return aTime < bTime }
            func key(_ event: ParsedTrace.Event) -> Int64 {
                event.ph == "X" ? Int64.max - nanoseconds(event.dur) : Int64.max
            }
            if key(a) != key(b) { return key(a) < key(b) }
            return left < right
        }
        var stacks: [Int: [Slice]] = [:]
        var started: [Int: (event: ParsedTrace.Event, slice: Slice)] = [:]
        var finished: Set<Int> = []
        for position in ordered {
            let event = trace.events[position]
            let lane = event.tid ?? -1
            let time = nanoseconds(event.ts)
            switch event.ph {
            case "X", "i":
                let length = event.ph == "X" ? nanoseconds(event.dur) : 0
                var stack = stacks[lane, default: []]
                var dropped = false
                while let top = stack.last {
                    if top.end < time || (top.end == time && !(top.end == top.begin && length == 0)) {
                        stack.removeLast()
                    } else {
                        if time < top.end && time + length > top.end {
                            problems.append(
                                "\(event.ph) \(event.name) at \(time) crosses the end of \(top.name) on lane \(lane)")
                            dropped = true
                        }
                        break
                    }
                }
                if !dropped {
                    let slice = Slice(
                        event: position, name: event.name, lane: lane, begin: time, end: time + length,
                        isInstant: event.ph == "i")
                    stack.append(slice)
                    slices.append(slice)
                }
                stacks[lane] = stack
            case "s":
                guard let id = event.id else {
                    problems.append("flow start without an id")
                    continue
                }
                guard let slice = stacks[lane]?.last else {
                    problems.append("flow \(id) starts on lane \(lane) with no slice to bind to")
                    continue
                }
                if started[id] != nil { problems.append("flow \(id) starts twice") }
                started[id] = (event, slice)
            case "f":
                guard let id = event.id else {
                    problems.append("flow finish without an id")
                    continue
                }
                if event.bp != "e" { problems.append("flow \(id) finish does not bind to its enclosing slice") }
                guard let start = started[id] else {
                    problems.append("flow \(id) finishes before it starts (flow_end_without_start)")
                    continue
                }
                guard let slice = stacks[lane]?.last else {
                    problems.append("flow \(id) finishes on lane \(lane) with no slice to bind to")
                    continue
                }
                if !finished.insert(id).inserted { problems.append("flow \(id) finishes twice") }
                if start.event.name != event.name || start.event.cat != event.cat {
                    problems.append("flow \(id) changes its name or category")
                }
                flows.append(
                    Flow(
                        id: id, name: event.name, start: start.event, finish: event, source: start.slice,
                        destination: slice))
            default:
                problems.append("unexpected event \(event.ph) \(event.name)")
            }
        }
        for id in Set(started.keys).subtracting(finished) { problems.append("flow \(id) never finishes") }

        for flow in flows {
            let startTime = nanoseconds(flow.start.ts)
            let finishTime = nanoseconds(flow.finish.ts)
            if finishTime < startTime {
                problems.append("flow \(flow.id) finishes at \(finishTime), before \(startTime)")
            }
            for (slice, time, role) in [(flow.source, startTime, "start"), (flow.destination, finishTime, "finish")] {
                if time < slice.begin || time > slice.end {
                    problems.append(
                        "flow \(flow.id) \(role) at \(time) binds to \(slice.name) [\(slice.begin), \(slice.end)], "
                            + "which does not contain it")
                }
                if slice.isInstant { problems.append("flow \(flow.id) \(role) binds to the instant \(slice.name)") }
            }
            if flow.source.event == flow.destination.event {
                problems.append("flow \(flow.id) (\(flow.name)) starts and finishes on one slice, \(flow.source.name)")
            }
            if flow.source.end > finishTime {
                problems.append(
                    "flow \(flow.id) (\(flow.name)) leaves \(flow.source.name) at its end \(flow.source.end), after its "
                        + "finish at \(finishTime)")
            }
            if flow.source.end > flow.destination.begin {
                problems.append(
                    "flow \(flow.id) (\(flow.name)) is drawn backwards: from \(flow.source.name)'s end at "
                        + "\(flow.source.end) to \(flow.destination.name)'s start at \(flow.destination.begin)")
            }
        }
    }
}

extension ParsedTrace {

    /// A viewer's reading of the file (see ``ViewerModel``).
    var viewer: ViewerModel { ViewerModel(self) }

    /// Everything a viewer would drop, bind wrongly or draw backwards, and everything the recorder promises about
    /// the file's shape; an empty list when it holds.
    var viewerProblems: [String] {
        var problems = ViewerModel(self).problems
        let pids = Set(events.compactMap(\.pid))
        if pids.count != 1 { problems.append("expected one pid, found \(pids)") }
        if phase("M").filter({ $0.name == "process_name" }).count != 1 { problems.append("no single process_name") }
        let names = phase("M").filter { $0.name == "thread_name" }
        if Set(names.compactMap(\.tid)).count != names.count { problems.append("a lane is named twice") }
        for event in events where event.tid == nil { problems.append("\(event.ph) \(event.name) has no tid") }
        for slice in slices {
            guard let ts = slice.ts, let dur = slice.dur else {
                problems.append("slice \(slice.name) lacks ts or dur")
                continue
            }
            if dur < 0 { problems.append("slice \(slice.name) has a negative duration") }
            if ts < 0 { problems.append("slice \(slice.name) begins before the trace") }
            if slice.cat == nil { problems.append("slice \(slice.name) has no category") }
        }
        for instant in phase("i") where instant.scope != "t" {
            problems.append("instant \(instant.name) is not thread-scoped")
        }
        return problems
    }

    /// The slices standing for procedures (marks of added procedures have no status).
    var procedureSlices: [Event] { slices.filter { $0.status != nil } }

    /// The zero-length marks where a procedure added another (`add …`, `produce …`).
    var marks: [Event] { slices.filter { $0.status == nil } }

    /// The procedure slice named `name` (the first, if several).
    func procedure(_ name: String) -> Event? { procedureSlices.first { $0.name == name } }

    /// The arrows named `name` a viewer draws, as (source slice name, destination slice name).
    func arrows(_ name: String) -> [(from: String, to: String)] {
        ViewerModel(self).flows.filter { $0.name == name }.map { ($0.source.name, $0.destination.name) }
    }
}
