import Foundation
import PKNetwork
import PKTesting
import Testing

// Checks on errors are evaluated before #expect: on failure Swift Testing reflects the operands, and reflecting
// values such as FoundationNetworking's URLError (whose user info holds the task) is the likely cause of a crash
// seen once in a full run.

struct NetworkDownloadProcedureTests {

    @Test func downloadMovesTheSessionFileToOneTheCallerOwns() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = RecordingSession(base: testSession)
        let download = NetworkDownloadProcedure(
            session: session, request: server.request("/bytes?size=100000"), downloadDirectory: directory)
        await run(download)
        let file = try #require(download.output.success?.payload)
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
        #expect(fileHoldsPattern(file, size: 100_000))
        // FoundationNetworking never deletes its own temporary file: the procedure moved it away.
        let locations = session.locations.value
        #expect(locations.count == 1)
        #expect(locations.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
    }

    @Test func aFailedMoveFailsTheProcedureAndLeavesNoTemporaryFile() async throws {
        // The session's file stayed behind when the move into the download directory failed (issue 22).
        let server = try #require(TestServer.start())
        let missing = makeScratchDirectory().appendingPathComponent("missing", isDirectory: true)
        let session = RecordingSession(base: testSession)
        let download = NetworkDownloadProcedure(
            session: session, request: server.request("/bytes?size=1000"), downloadDirectory: missing)
        await run(download)
        let failed = download.error != nil && download.output.success == nil
        #expect(failed)
        let locations = session.locations.value
        #expect(locations.count == 1)
        #expect(locations.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
        try? FileManager.default.removeItem(at: missing.deletingLastPathComponent())
    }

    /// Memory is not checked here: under the full parallel suite the process grew by 600 MB for other reasons. The
    /// benchmark's W15 row reports the resident growth of a 100 MB download instead.
    @Test func largeDownloadArrivesIntactOnDisk() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Under ThreadSanitizer, whose instrumented copies make each megabyte slow, a quarter of it: still far more
        // than any buffer on the way.
        #if PK_TSAN
            let size = 24 << 20
        #else
            let size = 96 << 20
        #endif
        let download = NetworkDownloadProcedure(
            session: testSession, request: server.request("/bytes?size=\(size)"), downloadDirectory: directory)
        await run(download)
        let file = try #require(download.output.success?.payload)
        let intact = await onThreadOfItsOwn { fileHoldsPattern(file, size: size) }
        #expect(intact)
    }

    @Test func errorBodiesAreDownloadedToo() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let download = NetworkDownloadProcedure(
            session: testSession, request: server.request("/status/500"), downloadDirectory: directory)
        await run(download)
        let response = try #require(download.output.success)
        #expect(response.statusCode == 500)
        #expect(try Data(contentsOf: try #require(response.payload)) == Data("status 500".utf8))
    }

    @Test func failedValidationCarriesTheBodyAndDeletesTheFile() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let download = NetworkDownloadProcedure(
            session: testSession, request: server.request("/status/503"), downloadDirectory: directory
        ).validate()
        await run(download)
        let error = try #require(download.error as? HTTPStatusError)
        let check1 = error.statusCode == 503
        #expect(check1)
        let check2 = error.bodyText == "status 503"
        #expect(check2)
        #expect(files(in: directory).isEmpty)
    }

    @Test func cancelledDownloadLeavesNoFile() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let completed = Box(false)
        let download = NetworkDownloadProcedure(
            session: testSession, request: server.request("/drip?bytes=900&interval_ms=100"),
            downloadDirectory: directory
        ) { _ in completed.update { $0 = true } }
        ProcedureQueue().add(procedure: download)
        await eventually("the download to start", timeout: startTimeout) { download.isExecuting }
        try await Task.sleep(for: .milliseconds(100))
        download.cancel()
        await finished([download])
        #expect(download.isCancelled)
        let check3 = download.errors.isEmpty
        #expect(check3)
        #expect(!completed.value)
        #expect(files(in: directory).isEmpty)
    }

    @Test func missingInputFailsWithRequirementNotSatisfied() async {
        let download = NetworkDownloadProcedure(session: testSession)
        await run(download)
        let check4 = (download.error as? ProcedureKitError)?.context == .requirementNotSatisfied
        #expect(check4)
    }

    @Test func connectionFailureIsTheProcedureError() async {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!)
        let download = NetworkDownloadProcedure(session: testSession, request: request)
        await run(download)
        let check5 = urlErrorCode(download.error) == .cannotConnectToHost
        #expect(check5)
    }
}
