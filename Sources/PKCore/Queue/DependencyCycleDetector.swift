/// Finds dependency cycles among procedures that are waiting for their dependencies.
///
/// Runs only when a queue has stalled (nothing running or ready, something waiting), so adding work stays O(1)
/// per edge; the search itself is an iterative depth-first search, linear in the waiting procedures and edges.
enum DependencyCycleDetector {

    private enum Mark { case visiting, done }

    /// Each cycle found, as the procedures in it in dependency order.
    static func cycles(among procedures: [Procedure]) -> [[Procedure]] {
        var marks: [ObjectIdentifier: Mark] = [:]
        var cycles: [[Procedure]] = []

        func waitingDependencies(of procedure: Procedure) -> [Procedure] {
            let (readiness, dependencies) = procedure.storage.withLock { ($0.readiness, $0.dependencies) }
            guard readiness == .waiting else { return [] }
            return dependencies.compactMap { dependency in
                guard let dependency = dependency as? Procedure,
                    dependency.storage.withLock({ $0.readiness == .waiting })
                else { return nil }
                return dependency
            }
        }

        for root in procedures where marks[ObjectIdentifier(root)] == nil {
            // Each frame: a procedure and the dependencies still to visit.
            var stack: [(procedure: Procedure, remaining: [Procedure])] = [(root, waitingDependencies(of: root))]
            marks[ObjectIdentifier(root)] = .visiting
            while !stack.isEmpty {
                guard let next = stack[stack.count - 1].remaining.popLast() else {
                    marks[ObjectIdentifier(stack.removeLast().procedure)] = .done
                    continue
                }
                switch marks[ObjectIdentifier(next)] {
                case .none:
                    marks[ObjectIdentifier(next)] = .visiting
                    stack.append((next, waitingDependencies(of: next)))
                case .visiting:
                    // A back edge: the cycle is the path on the stack from `next` to the top.
                    if let start = stack.firstIndex(where: { $0.procedure === next }) {
                        cycles.append(stack[start...].map(\.procedure))
                    }
                case .done:
                    break
                }
            }
        }
        return cycles
    }
}
