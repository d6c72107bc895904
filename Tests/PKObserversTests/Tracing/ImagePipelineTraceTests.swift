import Dispatch
import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

/// The ImagePipeline example's graph (`Examples/ImagePipeline`) on a recorded queue, its trace read back by a viewer's
/// rules in both layouts: downloads that finish later from another thread, as a network callback would (one fails,
/// one is cancelled while in flight); a resize per download; a publish that depends on every resize (fan-in); at
/// most two at a time. Times come from a ``TickingClock``, so every recorded time is distinct.
struct ImagePipelineTraceTests {

    struct NotFound: Error, CustomStringConvertible {
        let file: String
        var description: String { "not found: \(file)" }
    }

    /// A download finished from a global queue once `execute()` returned; `held` stays in flight until cancelled.
    final class Download: Procedure, @unchecked Sendable {
        // @unchecked Sendable: `inFlight` is behind its mutex; the rest is immutable.
        let file: String
        private let held: Bool
        private let inFlight = PKMutex(false)

        init(_ file: String, held: Bool = false) {
            self.file = file
            self.held = held
            super.init()
            name = "download \(file)"
            addDidCancelBlockObserver { download, _ in
                if download.claimFinish() { download.finish() }
            }
        }

        /// `true` for exactly one caller, so finish is called once.
        private func claimFinish() -> Bool {
            inFlight.withLock { inFlight in
                defer { inFlight = false }
                return inFlight
            }
        }

        override func execute() {
            inFlight.withLock { $0 = true }
            guard !held else { return }
            DispatchQueue.global().async { [self] in
                guard claimFinish() else { return }
                finish(with: file.hasPrefix("missing") ? NotFound(file: file) : nil)
            }
        }
    }

    /// Resizes its download's image: fails with it, or is cancelled with it.
    final class Resize: Procedure, @unchecked Sendable {
        // @unchecked Sendable: `download` is immutable.
        let download: Download

        init(_ download: Download) {
            self.download = download
            super.init()
            name = "resize \(download.file)"
            addDependency(download)
        }

        override func execute() {
            if download.isCancelled {
                cancel()
                finish()
            } else {
                finish(withErrors: download.errors)
            }
        }
    }

    /// Runs the pipeline; the huge download is cancelled once every other resize has finished.
    static func run() async -> TraceRecorder {
        let recorder = TraceRecorder(name: "ImagePipeline", clock: TickingClock())
        let queue = ProcedureQueue(name: "images", maxConcurrentOperationCount: 2)
        queue.addObserver(recorder)
        let downloads = [Download("huge.png", held: true)] + ["cat.png", "missing.png", "dog.png"].map { Download($0) }
        let resizes = downloads.map(Resize.init)
        let publish = TestProcedure(name: "publish")
        for resize in resizes { publish.addDependency(resize) }
        await onThreadOfItsOwn {
            queue.add(procedures: downloads)
            queue.add(procedures: resizes)
            queue.add(procedure: publish)
            _ = ProcedureWaiter.wait(for: Array(resizes.dropFirst()), timeout: hangTimeout)
            downloads[0].cancel()
            _ = ProcedureWaiter.wait(for: publish, timeout: hangTimeout)
            queue.waitUntilAllOperationsAreFinished()
        }
        return recorder
    }

    static let names = [
        "download huge.png", "download cat.png", "download missing.png", "download dog.png", "resize huge.png",
        "resize cat.png", "resize missing.png", "resize dog.png", "publish",
    ]

    @Test func eachProcedureIsALaneAndEveryDependencyAnArrowThatGoesForwards() async throws {
        let recorder = await Self.run()
        let trace = try #require(ParsedTrace(recorder.traceData()))
        #expect(trace.viewerProblems == [])
        #expect(Set(trace.procedureSlices.map(\.name)) == Set(Self.names))
        #expect(Set(trace.procedureSlices.compactMap(\.tid)).count == Self.names.count)
        let arrows = Set(trace.arrows("dependency").map { "\($0.from)→\($0.to)" })
        let files = ["huge.png", "cat.png", "missing.png", "dog.png"]
        #expect(arrows == Set(files.map { "download \($0)→resize \($0)" } + files.map { "resize \($0)→publish" }))
        #expect(trace.procedure("download huge.png")?.status == "cancelled")
        #expect(trace.procedure("download missing.png")?.status == "failed")
        #expect(trace.procedure("resize missing.png")?.errors == ["not found: missing.png"])
        #expect(trace.procedure("resize huge.png")?.status == "cancelled")
        #expect(trace.procedure("publish")?.status == "finished")
    }

    @Test func onThreadLanesEachResizeIsOneSliceOnItsThreadAndTheCancelledDownloadTwoMarks() async throws {
        let recorder = await Self.run()
        let trace = try #require(ParsedTrace(recorder.traceData(lanes: .perThread)))
        #expect(trace.viewerProblems == [])
        #expect(trace.otherData["lanes"] as? String == "perThread")
        // Every procedure executed, so each is on the lanes: whole, or a start and a finish.
        #expect(Set(trace.procedureSlices.map(\.name)) == Set(Self.names))
        for resize in Self.names.filter({ $0.hasPrefix("resize") }) {
            let slices = trace.procedureSlices.filter { $0.name == resize }
            #expect(slices.map { $0.args["part"] as? String } == ["whole"], "\(resize)")
            #expect(slices.first?.tid == (slices.first?.args["thread"] as? NSNumber)?.intValue)
        }
        // Cancelled from this test's thread while in flight: it finished there, not where it executed.
        let huge = trace.procedureSlices.filter { $0.name == "download huge.png" }
        #expect(Set(huge.compactMap { $0.args["part"] as? String }) == ["start", "finish"])
        #expect(huge.allSatisfy { $0.dur == 0 })
        #expect(Set(huge.compactMap(\.tid)).count == 2)
        #expect(trace.arrows("dependency").count == 8)
    }
}
