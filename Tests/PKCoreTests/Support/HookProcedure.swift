import Foundation
import PKTesting
import Synchronization

/// A procedure whose `execute()` runs a closure given at creation and does not finish by itself; it records
/// how often it executed and, in `trail`, the order of its overrides (`execute`, `procedureDidCancel`, …) among
/// whatever else the test appends.
final class HookProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `body` and `trail` are immutable and Sendable (`trail` guards its list with a Mutex).

    private let body: @Sendable (HookProcedure) -> Void
    let trail: Trail

    init(
        name: String = "HookProcedure", disableAutomaticFinishing: Bool = false, trail: Trail = Trail(),
        execute body: @escaping @Sendable (HookProcedure) -> Void = { $0.finish() }
    ) {
        self.body = body
        self.trail = trail
        super.init(disableAutomaticFinishing: disableAutomaticFinishing)
        self.name = name
    }

    var executeCount: Int { trail.entries.filter { $0 == "execute" }.count }
    var didExecute: Bool { executeCount > 0 }

    override func execute() {
        trail.append("execute")
        body(self)
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        trail.append("procedureDidCancel(isFinished: \(isFinished))")
    }

    override func procedureWillFinish(withErrors errors: [any Error]) {
        trail.append("procedureWillFinish")
    }

    override func procedureDidFinish(withErrors errors: [any Error]) {
        trail.append("procedureDidFinish")
    }
}
