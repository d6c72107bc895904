import Foundation
import PKConditions
import PKTesting
import Synchronization

/// The category type of the scenarios' `MutuallyExclusive` conditions (each scenario names its own categories).
enum ScenarioCategory {}

/// Builds a ``ScenarioSpec`` into procedures, runs it, checks it, and lets everything go: returns the violations
/// found (empty when the scenario behaved), each prefixed with nothing; the caller adds the seed.
enum ScenarioRunner {

    /// How long a scenario may take before it counts as hung.
    static let hangTimeout: TimeInterval = 30

    static func run(_ spec: ScenarioSpec) -> [String] {
        if let depth = spec.deepNesting { return runDeepNesting(depth: depth, seed: spec.seed) }
        let ledger = ScenarioLedger(categoryCount: spec.categoryCount)
        var violations: [String] = []
        do {
            let built = Built(spec: spec, ledger: ledger)
            violations = built.run()
        }
        let alive = ledger.leaks.waitUntilReleased(timeout: hangTimeout)
        if !alive.isEmpty { violations.append("not released after finishing: \(alive.prefix(5))") }
        return violations
    }

    /// A nest of groups `depth` deep around one leaf: it must finish, and then be released.
    private static func runDeepNesting(depth: Int, seed: UInt64) -> [String] {
        let leaks = LeakCheck()
        var violations: [String] = []
        do {
            let leaf = TestProcedure(name: "Leaf-\(seed)")
            var group = GroupProcedure(operations: [leaf])
            for _ in 1..<depth { group = GroupProcedure(operations: [group]) }
            leaks.track([leaf, group])
            ProcedureQueue().add(procedure: group)
            if !ProcedureWaiter.wait(for: group, timeout: hangTimeout * 4) {
                violations.append("a nest of \(depth) groups did not finish")
            } else if !leaf.didExecute || !group.isFinished || group.failed {
                violations.append("a nest of \(depth) groups finished wrongly: leaf executed \(leaf.didExecute)")
            }
        }
        let alive = leaks.waitUntilReleased(timeout: hangTimeout)
        if !alive.isEmpty { violations.append("not released: \(alive)") }
        return violations
    }

    /// A scenario's procedures, built.
    private final class Built {
        let spec: ScenarioSpec
        let ledger: ScenarioLedger
        let queue: ProcedureQueue
        /// Each node's procedure, by node index.
        var procedures: [Procedure?]
        /// Retry and repeat attempts, made as the scenario runs.
        let attempts = Protector<[(parent: Int, procedure: ScenarioProcedure)]>([])

        init(spec: ScenarioSpec, ledger: ScenarioLedger) {
            self.spec = spec
            self.ledger = ledger
            queue = ProcedureQueue(
                name: "Scenario-\(spec.seed)",
                maxConcurrentOperationCount: spec.width ?? OperationQueue.defaultMaxConcurrentOperationCount)
            procedures = Array(repeating: nil, count: spec.nodes.count)
            // Children before parents: a group's children are built first (they have higher indices).
            for node in spec.nodes.reversed() { procedures[node.index] = build(node) }
            for node in spec.nodes {
                guard let procedure = procedures[node.index] else { continue }
                for dependency in node.dependencies where node.injectsFrom != dependency {
                    procedure.addDependency(procedures[dependency]!)
                }
            }
        }

        private func categories(of node: ScenarioSpec.Node) -> [ConcurrencyTracker] {
            let indices = node.conditions.compactMap { condition -> Int? in
                if case .exclusive(let index) = condition { return index }
                return nil
            }
            return Set(indices).sorted().map { ledger.categories[$0] }
        }

        private func categoryName(_ index: Int) -> String { "Scenario-\(spec.seed)-\(index)" }

        private func build(_ node: ScenarioSpec.Node) -> Procedure {
            let name = "N\(node.index)"
            let procedure: Procedure
            switch node.kind {
            case .leaf(let work):
                let source = node.injectsFrom.flatMap { procedures[$0] as? ScenarioProcedure }
                let leaf = ScenarioProcedure(
                    name: name, work: work, fails: node.finishesWithError, categories: categories(of: node),
                    source: source)
                leaf.attach(ledger, node: node.index)
                if let source { leaf.injectResult(from: source) }
                procedure = leaf
            case .group(let children, let width):
                let group = ScenarioGroup(
                    name: name, children: children.map { procedures[$0]! }, categories: categories(of: node))
                if let width { group.maxConcurrentOperationCount = width }
                group.attach(ledger, node: node.index)
                procedure = group
            case .retry(let attempts, let failures):
                let made = Atomic<Int>(0)
                let (ledger, record) = (ledger, self.attempts)
                let index = node.index
                let retry = RetryProcedure<ScenarioProcedure>(max: attempts, wait: .immediate) {
                    let number = made.add(1, ordering: .relaxed).newValue
                    return Self.makeAttempt(
                        of: index, named: "\(name).\(number)", fails: number <= failures, ledger: ledger, record: record
                    )
                }
                retry.name = name
                _ = ledger.track(retry, node: node.index)
                procedure = retry
            case .repetition(let count):
                let made = Atomic<Int>(0)
                let (ledger, record) = (ledger, self.attempts)
                let index = node.index
                let repetition = RepeatProcedure<ScenarioProcedure>(max: count) {
                    let number = made.add(1, ordering: .relaxed).newValue
                    return Self.makeAttempt(
                        of: index, named: "\(name).\(number)", fails: false, ledger: ledger, record: record)
                }
                repetition.name = name
                _ = ledger.track(repetition, node: node.index)
                procedure = repetition
            }
            for condition in node.conditions {
                switch condition {
                case .satisfied: procedure.add(condition: BlockCondition { true })
                case .ignored: procedure.add(condition: BlockCondition { false })
                case .failed: procedure.add(condition: BlockCondition { throw TestError() })
                case .exclusive(let index):
                    procedure.add(condition: MutuallyExclusive<ScenarioCategory>(category: categoryName(index)))
                }
            }
            if node.holdsWillExecute {
                procedure.addWillExecuteBlockObserver { _, pending in
                    DispatchQueue.global().async { withExtendedLifetime(pending) {} }
                }
            }
            if node.holdsWillFinish || node.cancel == .duringFinish {
                let cancels = node.cancel == .duringFinish
                let holds = node.holdsWillFinish
                procedure.addWillFinishBlockObserver { procedure, _, pending in
                    if cancels { procedure.cancel() }
                    if holds { DispatchQueue.global().async { withExtendedLifetime(pending) {} } }
                }
            }
            return procedure
        }

        private static func makeAttempt(
            of parent: Int, named name: String, fails: Bool, ledger: ScenarioLedger,
            record: Protector<[(parent: Int, procedure: ScenarioProcedure)]>
        ) -> ScenarioProcedure {
            let attempt = ScenarioProcedure(name: name, work: .sync, fails: fails, categories: [], source: nil)
            attempt.attach(ledger, node: nil)
            record.append((parent, attempt))
            return attempt
        }

        /// Runs the scenario to the end and checks it; returns the violations.
        func run() -> [String] {
            let topLevel = spec.topLevel.map { procedures[$0]! }
            for index in spec.topLevel where spec.nodes[index].cancel == .beforeAdd {
                procedures[index]!.cancel()
                trackOf(index)?.cancelledBeforeAdd.store(true, ordering: .relaxed)
            }
            if spec.startGate { queue.isSuspended = true }
            for index in spec.topLevel {
                queue.add(procedure: procedures[index]!)
                if spec.nodes[index].cancel == .afterAdd { procedures[index]!.cancel() }
            }
            let racing = spec.nodes.filter { $0.cancel == .racing }.map { procedures[$0.index]! }
            if !racing.isEmpty {
                DispatchQueue.global().async { for procedure in racing { procedure.cancel() } }
            }
            if spec.startGate { queue.isSuspended = false }
            guard ProcedureWaiter.wait(for: topLevel, timeout: hangTimeout) else {
                let stuck = spec.nodes.map { "#\($0.index) \(procedures[$0.index]!.status)" }
                return ["hung: \(stuck.joined(separator: ", "))"]
            }
            let drained = DispatchSemaphore(value: 0)
            DispatchQueue.global().async { [queue] in
                queue.waitUntilAllOperationsAreFinished()
                drained.signal()
            }
            guard drained.wait(timeout: .now() + hangTimeout) == .success else {
                return ["hung: the queue did not drain"]
            }
            return ScenarioChecks(built: self).violations()
        }

        func trackOf(_ index: Int) -> Track? {
            switch procedures[index] {
            case let leaf as ScenarioProcedure: leaf.track
            case let group as ScenarioGroup: group.track
            default: ledger.allTracks.first { $0.node == index }
            }
        }
    }

    /// The invariants every scenario must keep.
    private struct ScenarioChecks {
        let built: Built

        func violations() -> [String] {
            let spec = built.spec
            var found: [String] = []
            let tracks = built.ledger.allTracks
            // Exactly one will/did-finish, in that order; no overlapping events; execute saw what it should.
            // A retry or repeat makes its first attempt when it is created; it never runs it when cancelled first.
            let attemptsNotTaken = Set(
                built.attempts.access.filter { !$0.procedure.isEnqueued }.map { ObjectIdentifier($0.procedure.track) })
            for track in tracks {
                if attemptsNotTaken.contains(ObjectIdentifier(track)) { continue }
                let willFinish = track.count(.willFinish)
                let didFinish = track.count(.didFinish)
                if willFinish != 1 || didFinish != 1 {
                    found.append("\(track.name): \(willFinish) willFinish, \(didFinish) didFinish")
                } else if let will = track.first(.willFinish), let did = track.first(.didFinish), will > did {
                    found.append("\(track.name): didFinish before willFinish")
                }
                found += track.overlaps
                found += track.executeViolations
            }
            for node in spec.nodes {
                guard let track = built.trackOf(node.index), let procedure = built.procedures[node.index] else {
                    continue
                }
                let executed = track.count(.execute) > 0
                let started = track.count(.willExecute) > 0 || executed
                if track.cancelledBeforeAdd.load(ordering: .relaxed), executed, !isGroupLike(node) {
                    found.append("\(track.name) was cancelled before it was added but executed")
                }
                let conditionsStop = node.conditions.contains { $0 == .ignored || $0 == .failed }
                if conditionsStop, executed, !isGroupLike(node) {
                    found.append("\(track.name) executed after a failed or ignored condition")
                }
                if spec.cycleMembers.contains(node.index) {
                    // A group caught in a cycle is cancelled, and then executes (cancelled) to finish its children.
                    if started, !isGroupLike(node) {
                        found.append("\(track.name) is in a dependency cycle but started")
                    }
                    let error = procedure.errors.first as? ProcedureKitError
                    if case .dependencyCycle? = error?.context {
                    } else {
                        found.append("\(track.name) is in a dependency cycle but ended with \(procedure.errors)")
                    }
                }
                if node.cancel == .duringFinish, expectsNoOtherCancel(node), procedure.isCancelled {
                    found.append("\(track.name) was cancelled by its WillFinish observer")
                }
                if case .group(let children, _) = node.kind, let groupWillFinish = track.first(.willFinish) {
                    for child in children {
                        guard let childTrack = built.trackOf(child) else { continue }
                        if let childDidFinish = childTrack.first(.didFinish), childDidFinish > groupWillFinish {
                            found.append("\(track.name) began finishing before its child \(childTrack.name) had")
                        }
                        if let childExecute = childTrack.first(.execute), let groupExecute = track.first(.execute),
                            childExecute < groupExecute
                        {
                            found.append("\(childTrack.name) executed before its group \(track.name)")
                        }
                    }
                }
            }
            for (parent, attempt) in built.attempts.access {
                guard let parentTrack = built.trackOf(parent), let parentWillFinish = parentTrack.first(.willFinish),
                    let attemptDidFinish = attempt.track.first(.didFinish)
                else { continue }
                if attemptDidFinish > parentWillFinish {
                    found.append("\(parentTrack.name) began finishing before its attempt \(attempt.procedureName) had")
                }
            }
            for (index, category) in built.ledger.categories.enumerated() where category.maxConcurrent > 1 {
                found.append("category \(index): \(category.maxConcurrent) procedures ran at once")
            }
            return found
        }

        private func isGroupLike(_ node: ScenarioSpec.Node) -> Bool {
            // Groups (and repeats, retries) execute even when cancelled, so that their children can finish.
            switch node.kind {
            case .leaf: false
            case .group, .retry, .repetition: true
            }
        }

        /// A WillFinish cancel must be ignored; these nodes have nothing else that could cancel them.
        private func expectsNoOtherCancel(_ node: ScenarioSpec.Node) -> Bool {
            guard node.conditions.isEmpty, node.injectsFrom == nil, node.parent == nil,
                !built.spec.cycleMembers.contains(node.index), case .leaf(let work) = node.kind
            else { return false }
            switch work {
            case .sync, .async: return true
            case .cancelsItself, .cancelledFromAnotherThread: return false
            }
        }
    }
}
