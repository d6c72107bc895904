import PKCore
import PKTesting
import Testing

/// Issue 26's second newcomer program, written the short way: load -> three transforms -> combine, each step an
/// `async` closure, the values passed on by result injection, and the result awaited with `queue.run`.
@Suite(.timeLimit(.minutes(1)))
struct NewcomerPipelineTests {

    struct StationOffline: Error, Equatable {}

    /// The newcomer's pipeline: `load` gives readings, three figures are worked out from them at once, and
    /// `combine` puts the figures into one line. Add `steps`, then run `combine`.
    struct Pipeline {
        typealias Figure = @Sendable ([Int]) async throws -> Int

        /// Sum, minimum and maximum.
        static let figures: [Figure] = [{ $0.reduce(0, +) }, { $0.min() ?? 0 }, { $0.max() ?? 0 }]

        let load: AsyncResultProcedure<[Int]>
        let figures: [AsyncTransformProcedure<[Int], Int>]
        let gathered: ResultProcedure<[Int]>
        let combine: TransformProcedure<[Int], String>

        /// Everything `combine` waits for.
        var steps: [Procedure] { [load] + figures + [gathered] }

        init(load: @escaping @Sendable () async throws -> [Int], figures: [Figure] = Pipeline.figures) {
            self.load = AsyncResultProcedure(asyncBlock: load)
            self.figures = figures.map { AsyncTransformProcedure(transform: $0) }
            for figure in self.figures { figure.injectResult(from: self.load) }
            gathered = self.figures.gathered()
            combine = TransformProcedure { figures in "sum \(figures[0]), min \(figures[1]), max \(figures[2])" }
            combine.injectResult(from: gathered)
        }
    }

    @Test func combinesTheThreeFiguresOfWhatWasLoaded() async throws {
        let pipeline = Pipeline(load: { [3, 1, 4, 1, 5] })
        let queue = ProcedureQueue()
        queue.add(procedures: pipeline.steps)
        let line = try await queue.run(pipeline.combine)
        #expect(line == "sum 14, min 1, max 5")
        PKExpectProcedureOutput(pipeline.gathered, [14, 1, 5])
    }

    @Test func theThreeTransformsRunAtTheSameTime() async throws {
        // Each figure waits until all three have started: worked out one after another, they would never finish.
        let allStarted = Rendezvous(count: 3)
        let figures = Pipeline.figures.map { figure -> Pipeline.Figure in
            { readings in
                await allStarted.arrive()
                return try await figure(readings)
            }
        }
        let pipeline = Pipeline(load: { [2, 7] }, figures: figures)
        let queue = ProcedureQueue()
        queue.add(procedures: pipeline.steps)
        #expect(try await queue.run(pipeline.combine) == "sum 9, min 2, max 7")
    }

    @Test func aFailingTransformReachesTheCallerWithOneRootCause() async throws {
        let failing: Pipeline.Figure = { _ in throw StationOffline() }
        let pipeline = Pipeline(load: { [3, 1, 4] }, figures: [Pipeline.figures[0], Pipeline.figures[1], failing])
        let queue = ProcedureQueue()
        queue.add(procedures: pipeline.steps)
        let error = try #require(await #expect(throws: (any Error).self) { try await queue.run(pipeline.combine) })
        #expect(error.rootCauses.count == 1)
        #expect(error.rootCauses.first as? StationOffline == StationOffline())
        #expect(error.isDependencyFailure)
        #expect(!error.isTimeout)
        // It arrived as "a dependency was cancelled", but a transform failed: not a cancellation.
        #expect(!error.isCancellation)
        // The other two figures were worked out; the combining steps never ran.
        PKExpectProcedureOutput(pipeline.figures[0], 8)
        PKExpectProcedureOutput(pipeline.figures[1], 1)
        PKExpectProcedureFinishedWithError(pipeline.figures[2], StationOffline())
        #expect(pipeline.gathered.isCancelled)
        #expect(pipeline.combine.isCancelled)
    }

    @Test func aFailingLoadReachesTheCallerOnceNotOncePerTransform() async throws {
        let pipeline = Pipeline(load: { throw StationOffline() })
        let queue = ProcedureQueue()
        queue.add(procedures: pipeline.steps)
        let error = try #require(await #expect(throws: (any Error).self) { try await queue.run(pipeline.combine) })
        #expect(error.rootCauses.count == 1)
        #expect(error.rootCauses.first as? StationOffline == StationOffline())
        #expect(error.isDependencyFailure)
        for figure in pipeline.figures { #expect(figure.isCancelled) }
    }

    /// Suspends each caller until `count` callers have arrived.
    actor Rendezvous {
        private let count: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(count: Int) { self.count = count }

        func arrive() async {
            guard waiting.count + 1 < count else {
                for waiter in waiting { waiter.resume() }
                waiting = []
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }
    }
}
