import PKConditions
import PKTesting
import Synchronization
import Testing

// The code of the article "Conditions" (PKConditions.docc/Conditions.md), as written there, so that it compiles
// and runs: keep the two in step (Scripts/docs.sh checks that every example of the article is in a test). The
// article's types are private here; the names it assumes (`featureFlags`, `network`, `HealthClient`, …) are defined
// first.

private final class ReportProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

private struct FeatureFlags: Sendable {
    var reportsEnabled: Bool
}

private let featureFlags = FeatureFlags(reportsEnabled: true)

private struct Network: Sendable {
    var isUp: Bool
}

private let network = Network(isUp: false)

private struct NetworkDown: Error {}

private final class RefreshTokenProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

private final class TokenStore: Sendable {
    static let shared = TokenStore()
    var isFresh: Bool { true }
}

private struct HealthClient: Sendable {
    let healthy: Bool
    func check(_ completion: @escaping @Sendable (Bool, (any Error)?) -> Void) { completion(healthy, nil) }
}

// "Three outcomes"

private final class IsOnline: Condition, @unchecked Sendable {
    override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(network.isUp ? .success(true) : .failure(NetworkDown()))
    }
}

// "Dependencies of a condition"

private final class HasFreshToken: Condition, @unchecked Sendable {
    // @unchecked Sendable: no stored state of its own; the base class guards its state with its lock.
    override init() {
        super.init()
        produceDependency(RefreshTokenProcedure())
    }

    override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.success(TokenStore.shared.isFresh))
    }
}

// "Writing your own condition"

private final class ServiceIsHealthy: Condition, @unchecked Sendable {
    // @unchecked Sendable: `client` is immutable and Sendable; the base class guards its own state.
    let client: HealthClient

    init(client: HealthClient) {
        self.client = client
        super.init()
        name = "ServiceIsHealthy"
    }

    override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        client.check { healthy, error in
            if let error { completion(.failure(error)) } else { completion(.success(healthy)) }
        }
    }
}

// "Compound conditions of your own"

/// Satisfied when none of its children is satisfied.
private final class NoneOf: Condition, @unchecked Sendable {
    // @unchecked Sendable: `children` is immutable; `running` is guarded by its Mutex.
    let children: [Condition]
    private let running = Mutex<ConditionEvaluator?>(nil)

    init(_ children: [Condition]) {
        self.children = children
        super.init()
        name = "NoneOf<\(children.map(\.conditionName).joined(separator: ", "))>"
    }

    override var mutuallyExclusiveCategories: Set<String> {
        get { children.reduce(super.mutuallyExclusiveCategories) { $0.union($1.mutuallyExclusiveCategories) } }
        set { super.mutuallyExclusiveCategories = newValue }
    }

    override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        let evaluator = ConditionEvaluator(conditions: children, mode: .any)
        running.withLock { $0 = evaluator }
        evaluator.evaluate(for: procedure) { result in
            if case .success(true) = result {
                completion(.failure(ProcedureKitError.conditionFailed()))
            } else {
                completion(.success(true))
            }
        }
    }

    override func evaluationWasCancelled() {
        running.withLock { $0 }?.cancel()
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ConditionsGuideTests {

    @Test func aBlockConditionLetsTheReportRun() async {
        let queue = ProcedureQueue()
        let report = ReportProcedure()
        report.add(condition: BlockCondition { featureFlags.reportsEnabled })
        queue.add(procedure: report)
        // End of the article's example.
        await report.waitUntilFinished()
        PKExpectProcedureFinished(report)
    }

    @Test func aFailedConditionCancelsWithItsError() async {
        let procedure = ReportProcedure()
        procedure.add(condition: IsOnline())
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()

        // … after the procedure finishes:
        print(procedure.error is NetworkDown)  // true
        print(procedure.isCancelled)  // true
        // End of the article's example.
        #expect(procedure.error is NetworkDown)
        #expect(procedure.isCancelled)
    }

    @Test func aProducedDependencyRunsBeforeTheEvaluation() async {
        let procedure = ReportProcedure()
        procedure.add(condition: HasFreshToken())
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()
        PKExpectProcedureFinished(procedure)
    }

    @Test func combining() async {
        let isAdministrator = TrueCondition()
        let isOwner = FalseCondition()
        let maintenanceMode = false
        let procedure = ReportProcedure()
        procedure.add(condition: (isAdministrator || isOwner) && !BlockCondition { maintenanceMode })
        // End of the article's example.
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()
        PKExpectProcedureFinished(procedure)
    }

    @Test func yourOwnConditions() async {
        let healthy = ReportProcedure()
        healthy.add(condition: ServiceIsHealthy(client: HealthClient(healthy: true)))
        let noneOf = ReportProcedure()
        noneOf.add(condition: NoneOf([FalseCondition()]))
        let queue = ProcedureQueue()
        queue.add(procedures: healthy, noneOf)
        await healthy.waitUntilFinished()
        await noneOf.waitUntilFinished()
        PKExpectProcedureFinished(healthy)
        PKExpectProcedureFinished(noneOf)
    }
}
