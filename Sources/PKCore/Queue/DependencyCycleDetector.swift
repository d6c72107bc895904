/// Finds dependency cycles among procedures that are waiting for their dependencies.
///
/// Runs only when a queue has stalled (nothing running or ready, something waiting), so adding work stays O(1)
/// per edge. It finds the strongly connected components of the "waits for" graph (Tarjan's algorithm, iterative,
/// linear in the waiting procedures and edges): every procedure in a component of two or more is on a cycle and
/// can never become ready. Overlapping cycles form one component, so they are reported, and cancelled, together.
enum DependencyCycleDetector {

    /// A group of procedures that wait for each other, with one cycle through them to name in the error.
    struct Cycle {
        /// Every procedure in the group.
        let members: [Procedure]
        /// A cycle through the group's first member, in dependency order (each waits for the next).
        let path: [Procedure]
    }

    /// Each group of procedures caught in dependency cycles.
    static func cycles(among procedures: [Procedure]) -> [Cycle] {
        let graph = Graph(procedures)
        return graph.stronglyConnectedComponents().filter { $0.count > 1 }.map { component in
            Cycle(
                members: component.map { graph.nodes[$0] },
                path: graph.cycle(through: component[0], within: Set(component)))
        }
    }

    /// The waiting procedures and their waiting dependencies, by index.
    private struct Graph {
        private(set) var nodes: [Procedure] = []
        private var indices: [ObjectIdentifier: Int] = [:]
        private var edges: [[Int]] = []

        /// The graph of `procedures` and every waiting procedure they wait for, directly or not.
        init(_ procedures: [Procedure]) {
            var dependencies: [[Procedure]] = []
            var work = procedures
            while let next = work.popLast() {
                let id = ObjectIdentifier(next)
                guard indices[id] == nil else { continue }
                indices[id] = nodes.count
                nodes.append(next)
                let waitingFor = Self.waitingDependencies(of: next)
                dependencies.append(waitingFor)
                work.append(contentsOf: waitingFor)
            }
            edges = dependencies.map { $0.compactMap { indices[ObjectIdentifier($0)] } }
        }

        static func waitingDependencies(of procedure: Procedure) -> [Procedure] {
            let (waiting, dependencies) = procedure.storage.withLock {
                ($0.readiness.isWaitingForDependencies, $0.dependencies)
            }
            guard waiting else { return [] }
            return dependencies.compactMap { dependency in
                guard let dependency = dependency as? Procedure,
                    dependency.storage.withLock({ $0.readiness.isWaitingForDependencies })
                else { return nil }
                return dependency
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
