import Foundation
import PKTesting
import Synchronization

/// The leaf procedure of a scenario: it records its `execute()` (checking, as it starts, that its dependencies
/// have finished and what it injected from), holds its mutually exclusive categories' trackers from `execute()`
/// until it starts finishing, and then does its ``ScenarioSpec/Work``.
final class ScenarioProcedure: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `values` and `trackBox` are guarded by their own locks; `work`, `fails`, `categories` and
    // `source` are immutable and Sendable; the superclass guards its own state.

    private let values = Protector<(input: Pending<Int>, output: Pending<ProcedureResult<Int>>)>((.pending, .pending))
    private let work: ScenarioSpec.Work
    private let fails: Bool
    private let categories: [ConcurrencyTracker]
    private let entered = Atomic<Bool>(false)
    /// The procedure this one injects from, checked as it executes.
    let source: ScenarioProcedure?
    private let trackBox = PKMutex<Track?>(nil)
    /// Set by ``attach(_:node:)``, before the procedure is enqueued.
    var track: Track { trackBox.withLock { $0 }! }

    init(
        name: String, work: ScenarioSpec.Work, fails: Bool, categories: [ConcurrencyTracker], source: ScenarioProcedure?
    ) {
        self.work = work
        self.fails = fails
        self.categories = categories
        self.source = source
        super.init()
        self.name = name
    }

    func attach(_ ledger: ScenarioLedger, node: Int?) {
        let track = ledger.track(self, node: node)
        trackBox.withLock { $0 = track }
    }

    var input: Pending<Int> {
        get { values.read { $0.input } }
        set { values.write { $0.input = newValue } }
    }

    var output: Pending<ProcedureResult<Int>> {
        get { values.read { $0.output } }
        set { values.write { $0.output = newValue } }
    }

    override func execute() {
        track.begin(.execute)
        let unfinished = dependencies.filter { !$0.isFinished }.map { $0.operationName }
        if !unfinished.isEmpty { track.violation("executed before its dependencies \(unfinished) finished") }
        if let source {
            if !source.isFinished || source.isCancelled || !source.errors.isEmpty {
                track.violation("executed although its injection source \(source.procedureName) did not succeed")
            } else if input != .ready(source.procedureName.hashValue) {
                track.violation("executed with input \(input), not its source's output")
            }
        }
        entered.store(true, ordering: .relaxed)
        for category in categories { category.enter() }
        output = .ready(.success(procedureName.hashValue))
        let error: (any Error)? = fails ? TestError() : nil
        switch work {
        case .sync:
            finish(with: error)
        case .async(let microseconds):
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(microseconds)) {
                self.finish(with: error)
            }
        case .cancelsItself:
            cancel()
            finish(with: error)
        case .cancelledFromAnotherThread:
            DispatchQueue.global().async {
                self.cancel()
                self.finish(with: error)
            }
        }
        track.end()
    }

    override func procedureWillFinish(withErrors errors: [any Error]) {
        if entered.load(ordering: .relaxed) {
            for category in categories { category.leave() }
        }
    }
}

/// A group of a scenario: it records its `execute()` and holds its categories' trackers like a leaf.
final class ScenarioGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `trackBox` is guarded by its PKMutex; `categories` is immutable; the
    // superclass guards its own state.

    private let categories: [ConcurrencyTracker]
    private let entered = Atomic<Bool>(false)
    private let trackBox = PKMutex<Track?>(nil)
    /// Set by ``attach(_:node:)``, before the group is enqueued.
    var track: Track { trackBox.withLock { $0 }! }

    init(name: String, children: [Operation], categories: [ConcurrencyTracker]) {
        self.categories = categories
        super.init(operations: children)
        self.name = name
    }

    func attach(_ ledger: ScenarioLedger, node: Int?) {
        let track = ledger.track(self, node: node)
        trackBox.withLock { $0 = track }
    }

    override func execute() {
        track.begin(.execute)
        // A cancelled group executes at once, whatever its dependencies (a cancelled procedure does not wait).
        let unfinished = dependencies.filter { !$0.isFinished }.map { $0.operationName }
        if !unfinished.isEmpty, !isCancelled {
            track.violation("executed before its dependencies \(unfinished) finished")
        }
        // A cancelled group still executes (so its children can finish) but never asked for its categories.
        if !isCancelled {
            entered.store(true, ordering: .relaxed)
            for category in categories { category.enter() }
        }
        super.execute()
        track.end()
    }

    override func procedureWillFinish(withErrors errors: [any Error]) {
        if entered.load(ordering: .relaxed) {
            for category in categories { category.leave() }
        }
    }
}
