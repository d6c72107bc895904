import Dispatch
import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

/// Many procedures at once on an unlimited queue, with traces written while they run (run it under
/// ThreadSanitizer: `Scripts/test-tsan.sh PKObserversTests`).
struct TraceRecorderConcurrencyTests {

    @Test func manyProceduresOnAnUnlimitedQueueAreAllRecordedWhileTracesAreWritten() async throws {
        let recorder = TraceRecorder()
        let queue = ProcedureQueue(name: "busy")
        queue.addObserver(recorder)
        // 40 chains of 25, each link depending on the one before, plus groups and cancellations along the way.
        let outcome = await onThreadOfItsOwn { () -> (procedures: Int, links: Int, snapshots: [Bool]) in
            var procedures: [Procedure] = []
            var links = 0
            for chain in 0..<40 {
                var previous: Procedure?
                for link in 0..<25 {
                    let procedure: Procedure
                    if link % 10 == 9 {
                        let group = GroupProcedure(operations: [TestProcedure(name: "c\(chain)l\(link) child")])
                        group.name = "c\(chain)l\(link)"
                        procedure = group
                    } else {
                        procedure = TestProcedure(name: "c\(chain)l\(link)")
                    }
                    if let previous {
                        procedure.addDependency(previous)
                        links += 1
                    }
                    procedures.append(procedure)
                    previous = procedure
                }
            }
            let writers = DispatchGroup()
            let snapshots = PKMutex<[Bool]>([])
            for _ in 0..<4 {
                DispatchQueue.global().async(group: writers) {
                    let valid = ParsedTrace(recorder.traceData()) != nil
                    snapshots.withLock { $0.append(valid) }
                }
            }
            // One cancel before the add, so at least one slice is cancelled however the threads are scheduled;
            // the rest race the lanes, which may finish them first.
            procedures[0].cancel()
            queue.add(procedures: procedures)
            for (index, procedure) in procedures.enumerated() where index > 0 && index % 97 == 0 { procedure.cancel() }
            _ = ProcedureWaiter.wait(for: procedures, timeout: hangTimeout)
            writers.wait()
            queue.waitUntilAllOperationsAreFinished()
            return (procedures.count, links, snapshots.withLock { $0 })
        }
        let trace = try #require(ParsedTrace(recorder.traceData()))
        #expect(outcome.snapshots == [true, true, true, true])
        #expect(trace.viewerProblems == [])
        // Every chain link and every group child.
        #expect(trace.procedureSlices.count == outcome.procedures + 40 * 2)
        #expect(trace.procedureSlices.allSatisfy { $0.status != "unfinished" })
        // Every link is an arrow, or (a cancelled procedure that finished before its dependency) listed as a
        // dependency still running.
        let stillRunning = trace.procedureSlices.reduce(0) {
            $0 + (($1.args["dependenciesStillRunning"] as? [Any])?.count ?? 0)
        }
        #expect(trace.flows("dependency").count + stillRunning == outcome.links)
        #expect(trace.marks.count == 40 * 2)
        #expect(trace.flows("child").count == 40 * 2)
        #expect(trace.procedureSlices.filter { $0.status == "cancelled" }.count >= 1)
    }

    @Test func aDependencyEnqueuedWhileItsDependentIsBeingTracedIsLinkedExactlyOnce() async throws {
        // The dependent (traced by an observer, as it has a dependency) and its dependency (traced through the
        // instrument hook) are enqueued from two threads at once: either the dependent finds the dependency
        // numbered, or the dependency, as it is numbered, finds the dependent waiting for it. Never neither, never
        // both.
        let pairs = 300
        for round in 0..<5 {
            let recorder = TraceRecorder(name: "Race \(round)")
            let queue = ProcedureQueue(name: "race")
            queue.addObserver(recorder)
            let dependencies = (0..<pairs).map { TestProcedure(name: "d\($0)") }
            let dependents = (0..<pairs).map { index in
                let dependent = TestProcedure(name: "D\(index)")
                dependent.addDependency(dependencies[index])
                return dependent
            }
            await onThreadOfItsOwn {
                let both = DispatchGroup()
                // Each thread adds dependents of half the pairs and dependencies of the other half, so whichever
                // runs ahead, both orders happen.
                DispatchQueue.global().async(group: both) {
                    for index in 0..<pairs {
                        queue.add(procedure: index % 2 == 0 ? dependents[index] : dependencies[index])
                    }
                }
                DispatchQueue.global().async(group: both) {
                    for index in 0..<pairs {
                        queue.add(procedure: index % 2 == 0 ? dependencies[index] : dependents[index])
                    }
                }
                both.wait()
                _ = ProcedureWaiter.wait(for: dependencies + dependents, timeout: hangTimeout)
                queue.waitUntilAllOperationsAreFinished()
            }
            let trace = try #require(ParsedTrace(recorder.traceData()))
            #expect(trace.viewerProblems == [])
            #expect(trace.procedureSlices.count == 2 * pairs)
            let links = trace.links("dependency")
            #expect(links.count == pairs)
            let lanes = Dictionary(uniqueKeysWithValues: trace.procedureSlices.map { ($0.tid, $0.name) })
            let linked = Set(links.map { "\(lanes[$0.from ?? -1] ?? "?")→\(lanes[$0.to ?? -1] ?? "?")" })
            #expect(linked == Set((0..<pairs).map { "d\($0)→D\($0)" }))
        }
    }
}
