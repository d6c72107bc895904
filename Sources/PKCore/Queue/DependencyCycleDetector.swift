/// Finds dependency cycles among procedures that are waiting for their dependencies.
///
/// Runs when a procedure arrives that procedures enqueued before it depend on, when a dependency is added to a
/// waiting procedure, at the end of a batch, and when a queue has stalled (nothing running or ready, something
/// waiting): adding work in dependency order never runs it, so it stays O(1) per edge. It finds the strongly connected components of the "waits for" graph (Tarjan's algorithm, iterative,
/// linear in the waiting procedures and edges): every procedure in a component of two or more is on a cycle and
/// can never become ready. Overlapping cycles form one component, so they are reported, and cancelled, together.
enum DependencyCycleDetector {

    /// A group of procedures that wait for each other, with one cycle through them to name in the error.
    struct Cycle {
        /// Every procedure in the group: those still waiting and, when the cycle was closed after part of it had
        /// been cancelled for a cycle, those too.
        let members: [Procedure]
        /// The members waiting for dependencies or not enqueued yet: the ones to cancel.
        let toCancel: [Procedure]
        /// A cycle through the group's first member, in dependency order (each waits for the next).
        let path: [Procedure]
    }

    /// Each group of procedures caught in dependency cycles. With `limit`, the graph explored is at most that
    /// many procedures; beyond it none is reported (a cycle found in part must not be cancelled in part).
    ///
    /// Cycles are looked for among procedures waiting for their dependencies (and those already cancelled for a
    /// cycle). A cycle found is then completed through procedures not enqueued yet: their dependencies are
    /// already known, and one of them arriving later would otherwise find the rest of its cycle cancelled and
    /// finished, and run.
    static func cycles(among procedures: [Procedure], limit: Int = .max) -> [Cycle] {
        guard let graph = Graph(procedures, limit: limit, throughNotEnqueued: false) else { return [] }
        let found = graph.stronglyConnectedComponents().filter { $0.count > 1 }
        guard !found.isEmpty else { return [] }
        // Rare (a cycle exists), so the complete walk costs nothing in the common case.
        let seeds = found.flatMap { $0.map { graph.nodes[$0] } }
        guard let whole = Graph(seeds, limit: .max, throughNotEnqueued: true) else { return [] }
        return whole.stronglyConnectedComponents().filter { $0.count > 1 }.compactMap { component in
            let toCancel = component.filter { whole.isUnfinished[$0] }
            // A component of members cancelled before only was reported then.
            guard let first = toCancel.first else { return nil }
            return Cycle(
                members: component.map { whole.nodes[$0] },
                toCancel: toCancel.map { whole.nodes[$0] },
                path: whole.cycle(through: first, within: Set(component)))
        }
    }

    /// The waiting procedures and their dependencies that can be on a cycle with them, by index.
    private struct Graph {
        private(set) var nodes: [Procedure] = []
        /// Whether each node is waiting for dependencies or not enqueued yet (the others were cancelled for a
        /// cycle).
        private(set) var isUnfinished: [Bool] = []
        private var indices: [ObjectIdentifier: Int] = [:]
        private var edges: [[Int]] = []

        /// The graph of `procedures` and every procedure they wait for, directly or not, that can be on a cycle:
        /// one waiting for its own dependencies, one cancelled for a dependency cycle (part of a cycle found
        /// before its last member arrived; ``CycleRemnants`` keeps its dependencies) and, when
        /// `throughNotEnqueued`, one not enqueued yet. `nil` when more than `limit` procedures would be in it.
        init?(_ procedures: [Procedure], limit: Int, throughNotEnqueued: Bool) {
            var dependencies: [[Procedure]] = []
            var work: [(Procedure, Standing)] = []
            func consider(_ procedure: Procedure) -> Bool {
                let standing = Self.standing(of: procedure)
                guard
                    standing == .waiting || standing == .cancelledForCycle
                        || (throughNotEnqueued && standing == .notEnqueued)
                else { return false }
                work.append((procedure, standing))
                return true
            }
            for procedure in procedures { _ = consider(procedure) }
            while let (next, standing) = work.popLast() {
                let id = ObjectIdentifier(next)
                guard indices[id] == nil else { continue }
                guard nodes.count < limit else { return nil }
                indices[id] = nodes.count
                nodes.append(next)
                isUnfinished.append(standing != .cancelledForCycle)
                let nextDependencies =
                    standing == .cancelledForCycle
                    ? CycleRemnants.dependencies(of: next)
                    : next.storage.withLock { $0.dependencies }.compactMap { $0 as? Procedure }
                dependencies.append(nextDependencies.filter(consider))
            }
            edges = dependencies.map { $0.compactMap { indices[ObjectIdentifier($0)] } }
        }

        private enum Standing { case waiting, cancelledForCycle, notEnqueued, outside }

        private static func standing(of procedure: Procedure) -> Standing {
            procedure.storage.withLock { state in
                if state.readiness.isWaitingForDependencies { return .waiting }
                // Finished or still finishing (a group finishes its children first): its dependencies are kept.
                if state.machine.wasCancelledForCycle { return .cancelledForCycle }
                switch state.machine.state {
                case .initialized, .willEnqueue: return .notEnqueued
                default: return .outside
                }
            }
        }

        /// Tarjan's algorithm with an explicit stack.
        func stronglyConnectedComponents() -> [[Int]] {
            var index = Array(repeating: -1, count: nodes.count)
            var lowlink = Array(repeating: 0, count: nodes.count)
            var onStack = Array(repeating: false, count: nodes.count)
            var stack: [Int] = []
            var components: [[Int]] = []
            var counter = 0
            for root in nodes.indices where index[root] < 0 {
                var frames: [(node: Int, next: Int)] = [(root, 0)]
                index[root] = counter
                lowlink[root] = counter
                counter += 1
                stack.append(root)
                onStack[root] = true
                while let frame = frames.last {
                    let node = frame.node
                    if frame.next < edges[node].count {
                        frames[frames.count - 1].next += 1
                        let target = edges[node][frame.next]
                        if index[target] < 0 {
                            index[target] = counter
                            lowlink[target] = counter
                            counter += 1
                            stack.append(target)
                            onStack[target] = true
                            frames.append((target, 0))
                        } else if onStack[target] {
                            lowlink[node] = min(lowlink[node], index[target])
                        }
                        continue
                    }
                    frames.removeLast()
                    if let parent = frames.last?.node { lowlink[parent] = min(lowlink[parent], lowlink[node]) }
                    guard lowlink[node] == index[node] else { continue }
                    var component: [Int] = []
                    while let member = stack.popLast() {
                        onStack[member] = false
                        component.append(member)
                        if member == node { break }
                    }
                    components.append(component.reversed())
                }
            }
            return components
        }

        /// A shortest cycle from `start` back to itself, staying inside `component`.
        func cycle(through start: Int, within component: Set<Int>) -> [Procedure] {
            var previous: [Int: Int] = [:]
            var frontier = [start]
            var end: Int?
            search: while !frontier.isEmpty {
                var next: [Int] = []
                for node in frontier {
                    for target in edges[node] where component.contains(target) {
                        if target == start {
                            end = node
                            break search
                        }
                        if previous[target] == nil {
                            previous[target] = node
                            next.append(target)
                        }
                    }
                }
                frontier = next
            }
            guard var node = end else { return [nodes[start]] }
            var path = [node]
            while node != start, let before = previous[node] {
                path.append(before)
                node = before
            }
            return path.reversed().map { nodes[$0] }
        }
    }
}
