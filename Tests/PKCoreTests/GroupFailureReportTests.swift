import PKCore
import PKTesting
import Synchronization
import Testing

// The Groups guide's "When a group fails: which children ran and failed", with the children it leaves out.

/// A group that keeps, for each child procedure, its name and the errors it finished with.
final class ReportingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `outcomes` is behind its Mutex; GroupProcedure guards its own state.
    private let outcomes = Mutex<[(child: String, errors: [any Error])]>([])

    /// Every child procedure that finished, in the order they finished; no errors for one that succeeded.
    var report: [(child: String, errors: [any Error])] { outcomes.withLock { $0 } }

    override func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        outcomes.withLock { $0.append((child.procedureName, errors)) }
        super.child(child, willFinishWithErrors: errors)  // the group still collects them
    }
}

private struct Order: Sendable {}

private struct Summary: Sendable {
    let count: Int
    init(_ orders: [Order]) { count = orders.count }
}

/// The error the guide's `orders` child fails with.
private struct OrdersUnavailable: Error, Equatable {}

/// The report of a group whose `orders` child fails, so that `summary`, injected from it, never runs.
struct GroupFailureReportTests {

    /// The guide's example, as written there, with its children; returns the group once it has finished.
    private func runTheGuidesExample(ordersFail: Bool) async -> ReportingGroup {
        let queue = ProcedureQueue()
        let users = ResultProcedure { ["ann", "bob"] }
        users.name = "users"
        let orders = ResultProcedure<[Order]> {
            if ordersFail { throw OrdersUnavailable() }
            return [Order(), Order()]
        }
        orders.name = "orders"

        // The guide's example, exactly as written there.
        let summary = TransformProcedure { (orders: [Order]) in Summary(orders) }
        summary.name = "summary"  // `users` and `orders` are named likewise
        summary.injectResult(from: orders)
        let group = ReportingGroup(operations: users, orders, summary)
        queue.add(procedure: group)
        await group.waitUntilFinished()
        // End of the guide's example, but for its last line (`let failed = …`), which the first test runs.

        return group
    }

    @Test func theReportNamesTheChildThatFailedAndTheOneThatDidNotRunBecauseOfIt() async {
        let group = await runTheGuidesExample(ordersFail: true)

        let failed = group.report.filter { !$0.errors.isEmpty }.map { $0.child }  // ["orders", "summary"]

        #expect(failed == ["orders", "summary"])
        let report = group.report
        #expect(report.map(\.child).sorted() == ["orders", "summary", "users"])
        let ordersErrors = report.first { $0.child == "orders" }?.errors ?? []
        #expect(ordersErrors.count == 1)
        #expect(ordersErrors.first as? OrdersUnavailable == OrdersUnavailable())
        let summaryErrors = report.first { $0.child == "summary" }?.errors ?? []
        let summaryDidNotRun = summaryErrors.contains {
            guard let error = $0 as? ProcedureKitError, error.context == .dependencyFinishedWithError else {
                return false
            }
            return error.underlyingErrors.count == 1 && error.underlyingError is OrdersUnavailable
        }
        #expect(summaryDidNotRun)
        #expect(report.first { $0.child == "users" }?.errors.isEmpty == true)
    }

    @Test func theGroupsOwnErrorsAreTheSameErrorsWithoutTheNames() async {
        let group = await runTheGuidesExample(ordersFail: true)
        let reported = group.report.flatMap(\.errors)
        #expect(group.errors.count == 2)
        #expect(group.errors.count == reported.count)
        #expect(group.errors.first as? OrdersUnavailable == OrdersUnavailable())
        #expect(group.errors.map { String(describing: $0) } == reported.map { String(describing: $0) })
    }

    @Test func aGroupWhoseChildrenAllSucceedReportsEachWithNoErrors() async {
        let group = await runTheGuidesExample(ordersFail: false)
        let failed = group.report.filter { !$0.errors.isEmpty }.map { $0.child }
        #expect(failed.isEmpty)
        #expect(group.report.map(\.child).sorted() == ["orders", "summary", "users"])
        #expect(group.errors.isEmpty)
    }

    @Test func aCancelledGroupStillReportsItsChildrenButCollectsNoChildErrors() async {
        let held = BlockProcedure { this in this.finish() }
        held.name = "held"
        let group = ReportingGroup(operations: held)
        group.cancel()
        ProcedureQueue().add(procedure: group)
        await group.waitUntilFinished()
        let report = group.report
        #expect(report.map(\.child) == ["held"])
        let parentCancelled = report.first?.errors.contains {
            ($0 as? ProcedureKitError)?.context == .parentCancelledWithError
        }
        #expect(parentCancelled == true)
        #expect(group.errors.isEmpty)
    }
}
