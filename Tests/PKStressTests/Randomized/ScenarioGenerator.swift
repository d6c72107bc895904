extension ScenarioSpec {

    /// A scenario made at random from `seed`: a small DAG of leaves, groups (possibly nested), retries and repeats,
    /// with dependencies, injection, conditions that pass, ignore, fail or take a mutually exclusive category,
    /// cancels at several stages, token-holding observers, a queue of width 1, 2, 4 or unlimited, sometimes a start
    /// gate, sometimes a dependency cycle (overlapping ones), and now and then a deep nest of groups.
    static func generate(seed: UInt64, deepNestingDepth: Int) -> ScenarioSpec {
        var random = SeededGenerator(seed: seed)
        var spec = ScenarioSpec(seed: seed)
        if deepNestingDepth > 0, random.chance(1) {
            spec.deepNesting = deepNestingDepth
            return spec
        }
        spec.width = random.pick([1, 2, 4, nil, nil])
        spec.startGate = random.chance(50)
        spec.categoryCount = random.pick([0, 1, 1, 2])
        let topCount = Int.random(in: 2...12, using: &random)
        for _ in 0..<topCount {
            let index = spec.addNode(parent: nil, depth: 0, random: &random)
            // Dependencies on earlier top-level nodes (a DAG), sometimes an injection.
            let earlier = spec.topLevel.filter { $0 < index }
            if !earlier.isEmpty, random.chance(50) {
                let count = Int.random(in: 1...min(3, earlier.count), using: &random)
                spec.nodes[index].dependencies = Array(Set((0..<count).map { _ in random.pick(earlier) })).sorted()
                if case .leaf = spec.nodes[index].kind, random.chance(30) {
                    let source = random.pick(spec.nodes[index].dependencies)
                    if case .leaf = spec.nodes[source].kind { spec.nodes[index].injectsFrom = source }
                }
            }
        }
        if random.chance(10) { spec.addCycles(random: &random) }
        return spec
    }

    /// Adds a node (and, for a group, its children) and returns its index.
    private mutating func addNode(parent: Int?, depth: Int, random: inout SeededGenerator) -> Int {
        let index = nodes.count
        nodes.append(Node(index: index, kind: .leaf(.sync), parent: parent))
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<12 where depth < 3:
            var children: [Int] = []
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                children.append(addNode(parent: index, depth: depth + 1, random: &random))
            }
            nodes[index].kind = .group(children: children, width: random.pick([1, 2, nil, nil]))
        case 12..<18:
            let attempts = Int.random(in: 1...3, using: &random)
            nodes[index].kind = .retry(attempts: attempts, failures: Int.random(in: 0...attempts, using: &random))
        case 18..<22:
            nodes[index].kind = .repetition(count: Int.random(in: 1...3, using: &random))
        default:
            let work: Work
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<45: work = .sync
            case 45..<80: work = .async(microseconds: Int.random(in: 0...300, using: &random))
            case 80..<90: work = .cancelsItself
            default: work = .cancelledFromAnotherThread
            }
            nodes[index].kind = .leaf(work)
        }
        if random.chance(25) {
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                var choices: [ConditionKind] = [.satisfied, .ignored, .failed]
                if categoryCount > 0 {
                    let category = Int.random(in: 0..<categoryCount, using: &random)
                    choices += [.exclusive(category), .exclusive(category), .exclusive(category)]
                }
                nodes[index].conditions.append(random.pick(choices))
            }
        }
        if random.chance(20) {
            var choices: [Cancel] = [.racing, .duringFinish]
            if parent == nil { choices += [.beforeAdd, .afterAdd] }
            nodes[index].cancel = random.pick(choices)
        }
        nodes[index].finishesWithError = random.chance(15)
        nodes[index].holdsWillExecute = random.chance(10)
        nodes[index].holdsWillFinish = random.chance(10)
        return index
    }

    /// Makes some top-level nodes wait for each other: a cycle, sometimes two overlapping ones.
    private mutating func addCycles(random: inout SeededGenerator) {
        let candidates = topLevel
        guard candidates.count >= 2 else { return }
        let size = Int.random(in: 2...min(4, candidates.count), using: &random)
        let members = Array(candidates.shuffled(using: &random).prefix(size))
        for (position, member) in members.enumerated() {
            let next = members[(position + 1) % members.count]
            if !nodes[member].dependencies.contains(next) { nodes[member].dependencies.append(next) }
        }
        if members.count >= 3, random.chance(50) {
            // A second cycle through two of the same members, overlapping the first.
            if !nodes[members[1]].dependencies.contains(members[0]) {
                nodes[members[1]].dependencies.append(members[0])
            }
        }
        // Edges that were there already can pull more nodes into the cycle: every node on some cycle is a member.
        cycleMembers = nodesOnCycles()
        for member in cycleMembers {
            // Injection reads the source when the target is about to execute, and a cycle member never gets there;
            // a member cancelled from outside would break the cycle (a cancelled procedure does not wait).
            nodes[member].injectsFrom = nil
            nodes[member].cancel = nil
        }
    }

    /// The top-level nodes that lie on a dependency cycle: those that can reach themselves.
    private func nodesOnCycles() -> Set<Int> {
        var onCycle = Set<Int>()
        for start in topLevel {
            var seen = Set<Int>()
            var work = nodes[start].dependencies
            while let next = work.popLast() {
                if next == start {
                    onCycle.insert(start)
                    break
                }
                if seen.insert(next).inserted { work.append(contentsOf: nodes[next].dependencies) }
            }
        }
        return onCycle
    }
}
