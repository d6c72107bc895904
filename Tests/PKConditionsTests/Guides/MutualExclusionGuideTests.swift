import PKConditions
import PKTesting
import Testing

// The code of the article "Mutual Exclusion" (PKConditions.docc/MutualExclusion.md) and of PKConditions' root page
// (PKConditions.docc/PKConditions.md), as written there, so that it compiles and runs: keep them in step
// (Scripts/docs.sh checks that every example of the catalogue is in a test). The procedures they assume are
// defined first.

private final class MigrateProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

private final class ExportProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

private final class BackupProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

private func diskHasSpace() -> Bool { true }

// "Mutual Exclusion"

private struct AccountsDatabase {}

@Suite(.timeLimit(.minutes(1)))
struct MutualExclusionGuideTests {

    @Test func migrateAndExportRunOneAfterTheOther() async {
        let queue = ProcedureQueue()
        let migrate = MigrateProcedure()
        migrate.add(condition: MutuallyExclusive<AccountsDatabase>())

        let export = ExportProcedure()
        export.add(condition: MutuallyExclusive<AccountsDatabase>())

        queue.add(procedures: migrate, export)  // one after the other, never together
        // End of the article's example.
        await migrate.waitUntilFinished()
        await export.waitUntilFinished()
        PKExpectProcedureFinished(migrate)
        PKExpectProcedureFinished(export)
    }

    @Test func theRootPagesBackup() async {
        let queue = ProcedureQueue()
        let backup = BackupProcedure()
        backup.add(condition: BlockCondition { diskHasSpace() })
        backup.add(condition: MutuallyExclusive<BackupProcedure>())
        backup.add(condition: NoFailedDependenciesCondition())
        queue.add(procedure: backup)
        // End of the page's example.
        await backup.waitUntilFinished()
        PKExpectProcedureFinished(backup)
    }
}
