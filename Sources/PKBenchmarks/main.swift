// The benchmark: ProcedureQueue against Foundation's OperationQueue, Swift task groups and Dispatch, in one run.
// Run it through Scripts/bench.sh (release mode). `--quick` for a CI smoke run, `--json` for machines.
import Foundation
import PKCore

Log.enabled = false

// A memory probe runs in a fresh process of its own (see `measureInFreshProcess`), so earlier allocations do not
// blur the figure.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--memory-probe",
    let count = Int(CommandLine.arguments[3])
{
    let bytes =
        switch CommandLine.arguments[2] {
        case "procedure": bytesPerPendingProcedure(count)
        case "procedure+timeout": bytesPerPendingProcedure(count, timeout: true)
        default: bytesPerBareOperation(count)
        }
    print(bytes)
    exit(0)
}

/// Runs this executable as a memory probe and returns the bytes per object it reports.
func measureInFreshProcess(_ kind: String, count: Int) -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--memory-probe", kind, String(count)]
    let pipe = Pipe()
    process.standardOutput = pipe
    do {
        try process.run()
    } catch {
        return .nan
    }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Double(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
}

let arguments = Set(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
/// `--only=W6,W7`: run just these workloads (W1 always runs: other targets are relative to it).
let only: Set<String>? = arguments.first { $0.hasPrefix("--only=") }.map {
    Set($0.dropFirst("--only=".count).split(separator: ",").map(String.init))
}
func selected(_ id: String) -> Bool { only?.contains(id) ?? true }
let json = arguments.contains("--json")
let sizes = quick ? Sizes.quick : Sizes.full
let repetitions = quick ? 3 : 7

struct Row: Codable {
    let workload: String
    let contender: String
    let operations: Int
    let medianSeconds: Double
    let microsecondsPerOperation: Double
    let target: String
    let met: Bool?
}

var rows: [Row] = []

@MainActor func report(_ workload: Workload, _ results: [Measurement]) {
    var medians: [String: Double] = [:]
    for result in results { medians[result.contender] = result.median }
    let (text, met) = workload.target(medians)
    for (index, result) in results.enumerated() {
        let operations = workload.operationsByContender[result.contender] ?? workload.operations
        rows.append(
            Row(
                workload: "\(workload.id) \(workload.title)", contender: result.contender,
                operations: operations, medianSeconds: result.median,
                microsecondsPerOperation: result.median * 1e6 / Double(operations),
                target: index == 0 ? text : "", met: index == 0 ? met : nil))
    }
}

func ratio(_ medians: [String: Double], _ ours: String, _ theirs: String) -> Double {
    (medians[ours] ?? .nan) / (medians[theirs] ?? .nan)
}

let n = sizes.independent

// W9 first, while the heap is fresh: memory is measured as growth of the resident set.
if selected("W9") {
    let perOperation = measureInFreshProcess("operation", count: sizes.pendingForMemory)
    let perProcedure = measureInFreshProcess("procedure", count: sizes.pendingForMemory)
    rows.append(
        Row(
            workload: "W9 memory, \(sizes.pendingForMemory) pending", contender: "bytes/BlockProcedure",
            operations: sizes.pendingForMemory, medianSeconds: .nan, microsecondsPerOperation: perProcedure,
            target: String(format: "≤1024 B (bare Operation: %.0f B)", perOperation), met: perProcedure <= 1024))
    let withTimeout = measureInFreshProcess("procedure+timeout", count: sizes.pendingForMemory)
    rows.append(
        Row(
            workload: "W9 memory, \(sizes.pendingForMemory) pending",
            contender: "bytes/BlockProcedure + TimeoutObserver",
            operations: sizes.pendingForMemory, medianSeconds: .nan, microsecondsPerOperation: withTimeout,
            target: "", met: nil))
}

// W1
let w1 = Workload(
    id: "W1", title: "\(n) independent procedures", operations: n,
    contenders: [
        ("ProcedureQueue", { procedureQueueIndependent(n) }),
        ("OperationQueue", { operationQueueIndependent(n) }),
        ("TaskGroup", { taskGroupIndependent(n) }),
        ("Dispatch", { dispatchIndependent(n) }),
    ],
    target: { m in
        let oq = ratio(m, "ProcedureQueue", "OperationQueue")
        let tg = ratio(m, "ProcedureQueue", "TaskGroup")
        let floor = ratio(m, "ProcedureQueue", "Dispatch")
        return (
            String(format: "≤0.35×OQ (%.2f), ≤0.6×TG (%.2f), ≤3.5×Dispatch (%.2f)", oq, tg, floor),
            oq <= 0.35 && tg <= 0.6 && floor <= 3.5
        )
    })
let w1Results = run(w1, repetitions: repetitions)
report(w1, w1Results)
let w1Median = w1Results[0].median

// W2
if selected("W2") {
    let w2 = Workload(
        id: "W2", title: "\(n) independent, width 4", operations: n,
        contenders: [
            ("ProcedureQueue", { procedureQueueIndependent(n, width: 4) }),
            ("OperationQueue", { operationQueueIndependent(n, width: 4) }),
            ("TaskGroup(window 4)", { taskGroupIndependent(n, window: 4) }),
        ],
        target: { m in
            let oq = ratio(m, "ProcedureQueue", "OperationQueue")
            return (String(format: "≤0.5×OQ (%.2f)", oq), oq <= 0.5)
        })
    report(w2, run(w2, repetitions: repetitions))
}

// W3
if selected("W3") {
    let w3 = Workload(
        id: "W3", title: "chain", operations: sizes.chainLong,
        contenders: [
            ("ProcedureQueue \(sizes.chainShort)", { procedureQueueChain(sizes.chainShort) }),
            ("ProcedureQueue \(sizes.chainLong)", { procedureQueueChain(sizes.chainLong) }),
        ] + sizes.foundationChains.map { count in ("OperationQueue \(count)", { operationQueueChain(count) }) },
        operationsByContender: Dictionary(
            uniqueKeysWithValues: [("ProcedureQueue \(sizes.chainShort)", sizes.chainShort)]
                + sizes.foundationChains.map { ("OperationQueue \($0)", $0) }),
        target: { m in
            let short = m["ProcedureQueue \(sizes.chainShort)"] ?? .nan
            let long = m["ProcedureQueue \(sizes.chainLong)"] ?? .nan
            let growth = long / short
            let allowed = 1.2 * Double(sizes.chainLong) / Double(sizes.chainShort)
            let perLink = long * 1e6 / Double(sizes.chainLong)
            return (
                String(format: "linear: long/short %.1f ≤ %.0f; %.2f µs/link ≤ 3", growth, allowed, perLink),
                growth <= allowed && perLink <= 3
            )
        })
    report(w3, run(w3, repetitions: repetitions))
}

// W4
if selected("W4") {
    let w4 = Workload(
        id: "W4", title: "fan-in \(sizes.fanIn) → 1", operations: sizes.fanIn,
        contenders: [
            ("ProcedureQueue", { procedureQueueFanIn(sizes.fanIn) }),
            ("OperationQueue", { operationQueueFanIn(sizes.fanIn) }),
        ],
        target: { m in
            let oq = ratio(m, "ProcedureQueue", "OperationQueue")
            return (String(format: "≤1×OQ (%.2f)", oq), oq <= 1)
        })
    report(w4, run(w4, repetitions: repetitions))
}

// W6
if selected("W6") {
    let w6 = Workload(
        id: "W6", title: "\(n) independent, 8 block observers each", operations: n,
        contenders: [("ProcedureQueue", { procedureQueueIndependent(n, observers: 8) })],
        target: { m in
            let growth = (m["ProcedureQueue"] ?? .nan) / w1Median
            return (String(format: "≤2×W1 (%.2f)", growth), growth <= 2)
        })
    report(w6, run(w6, repetitions: repetitions))
}

// W12: one TimeoutObserver on every procedure. The target is against the W1 row; W1 run again inside this row,
// alternating with it, gives a ratio less exposed to a busy machine (as in W13).
if selected("W12") {
    let w12 = Workload(
        id: "W12", title: "\(n) independent, one TimeoutObserver each", operations: n,
        contenders: [
            ("ProcedureQueue", { procedureQueueWithTimeouts(n) }),
            ("reference: W1 again, alternating", { procedureQueueIndependent(n) }),
        ],
        target: { m in
            let growth = (m["ProcedureQueue"] ?? .nan) / w1Median
            let alternating = (m["ProcedureQueue"] ?? .nan) / (m["reference: W1 again, alternating"] ?? .nan)
            return (String(format: "≤1.5×W1 (%.2f; alternating: %.2f)", growth, alternating), growth <= 1.5)
        })
    report(w12, run(w12, repetitions: repetitions))
}

// W10
if selected("W10") {
    let window = 64
    let w10 = Workload(
        id: "W10", title: "\(sizes.awaited) × try await run(_:), \(window) at a time", operations: sizes.awaited,
        contenders: [
            ("ProcedureQueue.run", { procedureQueueAwaitedByWorkers(sizes.awaited, window: window) }),
            ("TaskGroup(window 64)", { taskGroupIndependent(sizes.awaited, window: window) }),
            ("ProcedureQueue.run, task each", { procedureQueueAwaited(sizes.awaited, window: window) }),
            (
                "ProcedureQueue.run, underlyingQueue global",
                {
                    procedureQueueAwaitedOnGlobal(sizes.awaited, window: window)
                }
            ),
            ("await a Dispatch hop (floor)", { awaitedDispatchHops(sizes.awaited, window: window) }),
        ],
        target: { m in
            let tg = ratio(m, "ProcedureQueue.run", "TaskGroup(window 64)")
            return (String(format: "≤1.2×TG (%.2f)", tg), tg <= 1.2)
        })
    report(w10, run(w10, repetitions: repetitions))
}

// W5
if selected("W5") {
    let w5 = Workload(
        id: "W5", title: "GroupProcedure with \(sizes.groupChildren) children", operations: sizes.groupChildren,
        contenders: [("ProcedureQueue", { groupProcedure(children: sizes.groupChildren) })],
        target: { m in
            let perChild = (m["ProcedureQueue"] ?? .nan) / Double(sizes.groupChildren)
            let growth = perChild / (w1Median / Double(n))
            return (String(format: "≤3×W1 per child (%.2f)", growth), growth <= 3)
        })
    report(w5, run(w5, repetitions: repetitions))
}

// W7
if selected("W7") {
    let w7 = Workload(
        id: "W7", title: "\(n) independent, one BlockCondition each", operations: n,
        contenders: [("ProcedureQueue", { procedureQueueWithConditions(n) })],
        target: { m in
            let growth = (m["ProcedureQueue"] ?? .nan) / w1Median
            return (String(format: "≤2×W1 (%.2f)", growth), growth <= 2)
        })
    report(w7, run(w7, repetitions: repetitions))
}

// W8 (linear: the same per-procedure cost at two sizes)
if selected("W8") {
    let exclusiveSmall = max(sizes.exclusive / 10, 100)
    let w8 = Workload(
        id: "W8", title: "sharing one MutuallyExclusive category", operations: sizes.exclusive,
        contenders: [
            ("ProcedureQueue \(exclusiveSmall)", { procedureQueueExclusive(exclusiveSmall) }),
            ("ProcedureQueue \(sizes.exclusive)", { procedureQueueExclusive(sizes.exclusive) }),
        ],
        operationsByContender: ["ProcedureQueue \(exclusiveSmall)": exclusiveSmall],
        target: { m in
            let small = (m["ProcedureQueue \(exclusiveSmall)"] ?? .nan) / Double(exclusiveSmall)
            let large = (m["ProcedureQueue \(sizes.exclusive)"] ?? .nan) / Double(sizes.exclusive)
            let perProcedure = large * 1e6
            return (
                String(format: "linear (per-op ratio %.2f ≤ 1.2); %.2f µs each ≤ 5", large / small, perProcedure),
                large / small <= 1.2 && perProcedure <= 5
            )
        })
    report(w8, run(w8, repetitions: repetitions))
}

// W11: procedures whose execute() blocks on work they sent to the global queue must not stall the queue (the
// global dispatch pool on Linux grows by about a thread a second; this load used to take 20 s).
if selected("W11") {
    let blocking = 200
    let w11 = Workload(
        id: "W11", title: "\(blocking) executes blocking on global-queue work", operations: blocking,
        contenders: [
            ("ProcedureQueue", { procedureQueueBlocking(blocking) }),
            ("ProcedureQueue width 2", { procedureQueueBlocking(blocking, width: 2) }),
        ],
        target: { m in
            let seconds = m["ProcedureQueue"] ?? .nan
            return (String(format: "< 1 s (%.3f s)", seconds), seconds < 1)
        })
    report(w11, run(w11, repetitions: repetitions))
}

// W13: recording a timeline of every procedure (PKObservers' TraceRecorder on the queue). The target is against the
// W1 row, as W6's and W7's; W1 run again inside this row, alternating with the others, gives a ratio less exposed
// to a busy machine. Two references show where the time goes: a queue observer that does nothing (PKCore's queue
// notifications alone), and a TraceObserver attached to each procedure by hand (recording without the queue
// observer).
if selected("W13") {
    let w13 = Workload(
        id: "W13", title: "\(n) independent, queue-level TraceRecorder attached", operations: n,
        contenders: [
            ("ProcedureQueue + TraceRecorder", { procedureQueueIndependentTraced(n) }),
            ("… and the trace written as JSON", { procedureQueueIndependentTraced(n, writingTrace: true) }),
            ("reference: idle queue observer", { procedureQueueIndependentWithIdleObserver(n) }),
            ("reference: TraceObserver per procedure", { procedureQueueIndependentObservedByTrace(n) }),
            ("reference: W1 again, alternating", { procedureQueueIndependent(n) }),
        ],
        target: { m in
            let growth = (m["ProcedureQueue + TraceRecorder"] ?? .nan) / w1Median
            let w1Again = m["reference: W1 again, alternating"] ?? .nan
            let alternating = (m["ProcedureQueue + TraceRecorder"] ?? .nan) / w1Again
            let idle = (m["reference: idle queue observer"] ?? .nan) / w1Again
            let direct = (m["reference: TraceObserver per procedure"] ?? .nan) / w1Again
            return (
                String(
                    format: "≤2×W1 (%.2f; alternating: %.2f, idle queue observer %.2f, per-procedure observer %.2f)",
                    growth, alternating, idle, direct),
                growth <= 2
            )
        })
    report(w13, run(w13, repetitions: repetitions))
}

// W20: progress, watched on the queue and reported by each procedure, against W1 with progress unused
// (ProgressWorkloads.swift).
if selected("W20") {
    let w20 = progressWorkload(count: n, w1Median: w1Median)
    report(w20, run(w20, repetitions: repetitions))
}

// W21: short processes through a queue, against bare posix_spawn and Foundation.Process (ProcessWorkloads.swift).
if selected("W21") {
    let w21 = processWorkload(count: 200)
    report(w21, run(w21, repetitions: repetitions))
}

// W19: fan-out, taking each value as it is done (FanOutWorkloads.swift).
if selected("W19") {
    let w19 = fanOutWorkload(count: sizes.fanOut)
    report(w19, run(w19, repetitions: repetitions))
}

// W26: ResultProcedure, TransformProcedure and AsyncResultProcedure against a BlockProcedure
// (OutputProcedureWorkload.swift).
if selected("W26") {
    let w26 = outputProcedureWorkload(count: n)
    report(w26, run(w26, repetitions: repetitions))
}

// W14 and W15: PKNetwork's overhead over plain URLSession, against the same loopback server (python3).
if selected("W14") || selected("W15") {
    if let server = BenchmarkServer() {
        let width = 16
        let session = benchmarkSession(width: width)
        if selected("W14") {
            let gets = quick ? 200 : 2_000
            let w14 = Workload(
                id: "W14", title: "\(gets) small GETs, \(width) at a time (loopback)", operations: gets,
                contenders: [
                    (
                        "NetworkDataProcedure, queue width 16",
                        {
                            networkDataProcedures(gets, width: width, server: server, session: session)
                        }
                    ),
                    (
                        "URLSession dataTask, 16 in flight",
                        {
                            urlSessionDataTasks(gets, width: width, server: server, session: session)
                        }
                    ),
                ],
                target: { m in
                    let r = ratio(m, "NetworkDataProcedure, queue width 16", "URLSession dataTask, 16 in flight")
                    return (String(format: "≤1.1×URLSession (%.2f)", r), r <= 1.1)
                })
            report(w14, run(w14, repetitions: repetitions))
        }
        if selected("W15") {
            let size = quick ? 8 << 20 : 100 << 20
            let before = heapBytesInUse() ?? 0
            var grown = 0
            let w15 = Workload(
                id: "W15", title: "download of \(size >> 20) MB (loopback)", operations: 1,
                contenders: [
                    (
                        "NetworkDownloadProcedure",
                        {
                            networkDownloadProcedure(size: size, server: server, session: session)
                            grown = max(grown, (heapBytesInUse() ?? 0) - before)
                        }
                    ),
                    ("URLSession downloadTask", { urlSessionDownload(size: size, server: server, session: session) }),
                ],
                target: { m in
                    let r = ratio(m, "NetworkDownloadProcedure", "URLSession downloadTask")
                    return (
                        String(format: "≤1.05×URLSession (%.2f), resident growth %d MB", r, grown >> 20),
                        r <= 1.05 && grown < size / 4
                    )
                })
            report(w15, run(w15, repetitions: repetitions))
        }
        session.finishTasksAndInvalidate()
    } else {
        FileHandle.standardError.write(Data("W14/W15 skipped: python3 could not start the loopback server\n".utf8))
    }
}

// W16 to W18 and W22: durable jobs on PostgreSQL (DurableWorkloads.swift).
runDurableWorkloads()

// A million-long chain must run and deallocate without crashing (full runs only).
if !quick && selected("chain") {
    let seconds = measure { procedureQueueChain(1_000_000) }
    rows.append(
        Row(
            workload: "chain of 1,000,000 runs and deallocates", contender: "ProcedureQueue", operations: 1_000_000,
            medianSeconds: seconds, microsecondsPerOperation: seconds, target: "no crash", met: true))
}

// MARK: - Output

if json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    print(String(decoding: try encoder.encode(rows), as: UTF8.self))
} else {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    print("ProcedureKit benchmark — \(quick ? "quick" : "full") run, median of \(repetitions), \(cores) cores")
    print("| workload | contender | median | per op | target | met |")
    print("|---|---|---|---|---|---|")
    for row in rows {
        let median = row.medianSeconds.isNaN ? "–" : String(format: "%.3f s", row.medianSeconds)
        let perOp: String
        if row.microsecondsPerOperation.isNaN {
            perOp = "–"
        } else if row.contender.hasPrefix("bytes") {
            perOp = String(format: "%.0f B", row.microsecondsPerOperation)
        } else {
            perOp = String(format: "%.2f µs", row.microsecondsPerOperation)
        }
        let met = row.met.map { $0 ? "yes" : "**no**" } ?? ""
        print("| \(row.workload) | \(row.contender) | \(median) | \(perOp) | \(row.target) | \(met) |")
    }
}
