import Foundation
import PKTesting
import Testing

/// The TraceDemo example (`Examples/TraceDemo`), run as built, its two files read back by a viewer's rules: what a
/// user opening them in Perfetto sees. Real threads and a real clock, about 0.2 s.
struct TraceDemoTraceTests {

    /// Both files of one run: a lane per procedure, and a lane per thread.
    struct Traces {
        let procedures: ParsedTrace
        let threads: ParsedTrace
    }

    static func run(sourceLocation: SourceLocation = #_sourceLocation) async -> Traces? {
        guard let executable = ProductsDirectory.executable(named: "TraceDemo") else {
            let searched = ProductsDirectory.candidates.map(\.path).joined(separator: ", ")
            Issue.record(
                "TraceDemo is not built next to the tests (searched \(searched))", sourceLocation: sourceLocation)
            return nil
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trace-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("trace.json")
        let ended = await onThreadOfItsOwn { () -> (ChildProcess.Termination?, String) in
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let child = try ChildProcess(executable: executable, arguments: [url.path])
                let termination = child.waitForExit(timeout: hangTimeout)
                return (termination, child.output)
            } catch {
                return (nil, "could not run \(executable): \(error)")
            }
        }
        guard ended.0 == .exited(0) else {
            Issue.record(
                "TraceDemo ended \(ended.0.map { "\($0)" } ?? "late"):\n\(ended.1)", sourceLocation: sourceLocation)
            return nil
        }
        let threadsURL = directory.appendingPathComponent("trace-threads.json")
        guard let procedures = try? Data(contentsOf: url), let threads = try? Data(contentsOf: threadsURL),
            let procedureTrace = ParsedTrace(procedures, sourceLocation: sourceLocation),
            let threadTrace = ParsedTrace(threads, sourceLocation: sourceLocation)
        else {
            Issue.record("TraceDemo did not write both files:\n\(ended.1)", sourceLocation: sourceLocation)
            return nil
        }
        return Traces(procedures: procedureTrace, threads: threadTrace)
    }

    static let procedures: Set<String> = [
        "Load configuration", "Download files", "Download a.bin", "Download b.bin", "Download c.bin", "Decode", "Index",
        "Validate", "Publish", "Prefetch thumbnails",
    ]

    static let dependencyArrows: Set<String> = [
        "Load configuration→Download files", "Load configuration→Prefetch thumbnails", "Download files→Decode",
        "Decode→Validate", "Validate→Publish",
    ]

    @Test func theTraceWithALanePerProcedureIsDrawnAsItHappened() async throws {
        let traces = try #require(await Self.run())
        let trace = traces.procedures
        #expect(trace.viewerProblems == [])
        #expect(Set(trace.procedureSlices.map(\.name)) == Self.procedures)
        // Each lane is named after its procedure alone: a viewer adds the lane's number.
        let laneNames = trace.phase("M").filter { $0.name == "thread_name" }.compactMap { $0.args["name"] as? String }
        #expect(Set(laneNames) == Self.procedures)
        // Every dependency is an arrow, Validate → Publish included: Publish was cancelled by Validate's DidFinish
        // observer, and is drawn after Validate's slice ended, not overlapping it.
        #expect(Set(trace.arrows("dependency").map { "\($0.from)→\($0.to)" }) == Self.dependencyArrows)
        let validate = try #require(trace.procedure("Validate"))
        let publish = try #require(trace.procedure("Publish"))
        #expect(try #require(publish.beginNanoseconds) >= (try #require(validate.endNanoseconds)))
        #expect(publish.status == "cancelled")
        // The group's arrows leave the marks where it added each child, and reach each child's start.
        #expect(
            Set(trace.arrows("child").map { "\($0.from)→\($0.to)" })
                == [
                    "add Download a.bin→Download a.bin", "add Download b.bin→Download b.bin",
                    "add Download c.bin→Download c.bin",
                ])
        #expect(Set(trace.arrows("produced").map { "\($0.from)→\($0.to)" }) == ["produce Index→Index"])
        #expect(trace.procedure("Validate")?.status == "failed")
        #expect(trace.procedure("Prefetch thumbnails")?.status == "cancelled")
    }

    @Test func theTraceWithALanePerThreadIsDrawnOnTheThreadsThatRanIt() async throws {
        let traces = try #require(await Self.run())
        let trace = traces.threads
        #expect(trace.viewerProblems == [])
        #expect(Set(trace.procedureSlices.map(\.name)) == Self.procedures)
        #expect(trace.phase("M").filter { $0.name == "thread_name" }.isEmpty)
        // A slice from start to finish sits on the thread that executed it.
        for slice in trace.procedureSlices where slice.args["part"] as? String == "whole" {
            #expect(slice.tid == (slice.args["thread"] as? NSNumber)?.intValue, "\(slice.name)")
        }
        #expect(Set(trace.arrows("dependency").map { "\($0.from)→\($0.to)" }) == Self.dependencyArrows)
        #expect(trace.arrows("child").count == 3)
        #expect(trace.arrows("produced").count == 1)
    }
}
