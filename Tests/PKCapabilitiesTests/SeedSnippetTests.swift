import Foundation
import PKCapabilities
import PKTesting
import Testing

// Seed 004's capability snippet, with Linux capabilities in place of `Capability.Location(.whenInUse)`. The only
// other changes are `@unchecked Sendable`, which every Procedure subclass restates in Swift 6, with the comment
// saying why it is safe.

final class DoSomethingWithPrivileges: Procedure, @unchecked Sendable {
    // @unchecked Sendable: no stored state of its own; Procedure documents its locking.
    override init() {
        super.init()
        name = "Privileges Operation"
        add(condition: AuthorizedFor(Capability.ProcessPrivileges(.netBindService)))
    }

    override func execute() {
        // do something needing CAP_NET_BIND_SERVICE here

        finish()
    }
}

final class DoSomethingWithFiles: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `didExecute` is immutable, and its value is guarded by the Box's PKMutex.
    let didExecute = Box(false)

    init(path: String) {
        super.init()
        name = "Files Operation"
        add(condition: AuthorizedFor(Capability.FileAccess([.read, .write], at: path)))
    }

    override func execute() {
        // do something with the directory here
        didExecute.value = true
        finish()
    }
}

/// The seed's promise: the procedure runs when the capability is authorized, and otherwise finishes cancelled
/// without running.
struct SeedSnippetTests {

    @Test func theSeedProcedureRunsExactlyWhenTheProcessHoldsTheCapability() async throws {
        let holdsIt = try Capability.ProcessPrivileges(.netBindService).currentSets().effective
            .contains(.netBindService)
        let procedure = DoSomethingWithPrivileges()
        await run(procedure)
        #expect(procedure.name == "Privileges Operation")
        if holdsIt {
            PKExpectProcedureFinished(procedure)
        } else {
            PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
        }
    }

    @Test func theSeedProcedureRunsWithAnAuthorizedDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let procedure = DoSomethingWithFiles(path: directory.path)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(procedure.didExecute.value)
    }

    @Test func theSeedProcedureDoesNotRunWithoutTheDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let procedure = DoSomethingWithFiles(path: directory.file("absent"))
        await run(procedure)
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
        #expect(!procedure.didExecute.value)
    }
}
