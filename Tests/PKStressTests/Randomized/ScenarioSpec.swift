/// A randomized scenario, as data: what to build and how to run it. Generated from a seed by
/// ``ScenarioSpec/generate(seed:)``; ``ScenarioRunner`` builds and runs it, ``ScenarioChecks`` judges it.
struct ScenarioSpec: CustomStringConvertible {

    /// How a node's procedure behaves when it executes.
    enum Work: CustomStringConvertible {
        /// Finishes inside `execute()`.
        case sync
        /// Returns from `execute()` and finishes from another thread after about `microseconds`.
        case async(microseconds: Int)
        /// Cancels itself inside `execute()`, then finishes.
        case cancelsItself
        /// Returns from `execute()` and is cancelled from another thread, then finishes.
        case cancelledFromAnotherThread

        var description: String {
            switch self {
            case .sync: "sync"
            case .async(let microseconds): "async(\(microseconds)µs)"
            case .cancelsItself: "cancelsItself"
            case .cancelledFromAnotherThread: "cancelledFromAnotherThread"
            }
        }
    }

    /// What kind of procedure a node is.
    enum Kind: CustomStringConvertible {
        /// A plain scenario procedure.
        case leaf(Work)
        /// A group of the given child nodes, with a width (`nil`: unlimited).
        case group(children: [Int], width: Int?)
        /// A retry of up to `attempts` attempts, the first `failures` of which fail.
        case retry(attempts: Int, failures: Int)
        /// A repeat of `count` operations.
        case repetition(count: Int)

        var description: String {
            switch self {
            case .leaf(let work): "leaf(\(work))"
            case .group(let children, let width): "group(\(children), width \(width.map(String.init) ?? "∞"))"
            case .retry(let attempts, let failures): "retry(\(attempts), failing \(failures))"
            case .repetition(let count): "repeat(\(count))"
            }
        }
    }

    /// A condition attached to a node.
    enum ConditionKind: Equatable, CustomStringConvertible {
        case satisfied, ignored, failed
        /// Mutually exclusive in the scenario's category with this index.
        case exclusive(Int)

        var description: String {
            switch self {
            case .satisfied: "satisfied"
            case .ignored: "ignored"
            case .failed: "failed"
            case .exclusive(let category): "exclusive(\(category))"
            }
        }
    }

    /// When the runner cancels a node from outside.
    enum Cancel: Equatable, CustomStringConvertible {
        /// Before it is added to its queue.
        case beforeAdd
        /// Right after it is added, from the adding thread.
        case afterAdd
        /// From another thread, racing the start gate.
        case racing
        /// From its WillFinish observer (must be ignored).
        case duringFinish

        var description: String {
            switch self {
            case .beforeAdd: "beforeAdd"
            case .afterAdd: "afterAdd"
            case .racing: "racing"
            case .duringFinish: "duringFinish"
            }
        }
    }

    struct Node: CustomStringConvertible {
        let index: Int
        var kind: Kind
        /// Dependencies, by node index (a top-level node only depends on top-level nodes).
        var dependencies: [Int] = []
        /// A node this one injects its input from (a dependency too).
        var injectsFrom: Int?
        var conditions: [ConditionKind] = []
        var cancel: Cancel?
        var finishesWithError = false
        /// Holds its WillExecute token a little while on another thread.
        var holdsWillExecute = false
        /// Holds its WillFinish token a little while on another thread.
        var holdsWillFinish = false
        /// The group this node is a child of.
        var parent: Int?

        var description: String {
            var parts = ["#\(index) \(kind)"]
            if !dependencies.isEmpty { parts.append("deps \(dependencies)") }
            if let injectsFrom { parts.append("injects from #\(injectsFrom)") }
            if !conditions.isEmpty { parts.append("conditions \(conditions)") }
            if let cancel { parts.append("cancel \(cancel)") }
            if finishesWithError { parts.append("fails") }
            if holdsWillExecute { parts.append("holds WillExecute") }
            if holdsWillFinish { parts.append("holds WillFinish") }
            return parts.joined(separator: ", ")
        }
    }

    let seed: UInt64
    var nodes: [Node] = []
    /// Width of the scenario's queue (`nil`: unlimited).
    var width: Int?
    /// Whether everything is added to a suspended queue and released at once.
    var startGate = false
    /// Nodes forming dependency cycles (top-level, added to the queue): they must never execute.
    var cycleMembers: Set<Int> = []
    /// How many mutually exclusive categories the scenario uses.
    var categoryCount = 0
    /// Nest depth of a deep chain of groups, if this scenario is one (then `nodes` is ignored).
    var deepNesting: Int?

    /// The nodes added to the queue directly.
    var topLevel: [Int] { nodes.filter { $0.parent == nil }.map(\.index) }

    var description: String {
        if let deepNesting { return "seed \(seed): groups nested \(deepNesting) deep" }
        let header =
            "seed \(seed): width \(width.map(String.init) ?? "∞"), gate \(startGate), cycle \(cycleMembers.sorted())"
        return ([header] + nodes.map { "  \($0)" }).joined(separator: "\n")
    }
}
