import PKCore
import Testing

// The PKCore half of the example of "Migrating from ProcedureKit" (PKCore.docc/MigratingFromProcedureKit.md), as
// written there, so that it compiles: keep the two in step (Scripts/docs.sh checks that the article's examples are
// in a test, but for the ProcedureKit 5 half, which Swift 6 rejects: that is the point of the example).

// PKCore
private final class Resize: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `scale` is behind its Protector.
    let scale = Protector(1.0)
    override func execute() { finish() }
}

struct MigratingFromProcedureKitGuideTests {

    @Test func theMigratedResizeRuns() async {
        let resize = Resize()
        ProcedureQueue().add(procedure: resize)
        await resize.waitUntilFinished()
        #expect(resize.isFinished)
        #expect(resize.scale.read { $0 } == 1.0)
    }
}
