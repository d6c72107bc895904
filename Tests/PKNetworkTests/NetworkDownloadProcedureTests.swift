import Foundation
import PKNetwork
import PKObservers
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

    // Issue 37 item 4: FoundationNetworking's download tasks left an empty <UUID>.tmp in the temporary directory for
    // each transfer that failed (refused, reset, closed, cut short, cancelled, timed out). A ManagedNetworkSession
    // downloads into files of its own and deletes them on every outcome.

    /// Written against PKNetwork's default session, so that it runs unchanged on the code before the fix, where it
    /// found one `<UUID>.tmp` per failed transfer.
    @Test func failedCancelledAndTimedOutDownloadsLeaveNoFileInTheTemporaryDirectory() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = TemporaryDownloadFiles.snapshot()
        let refused = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!)
        let requests = [
            refused, server.request("/reset"), server.request("/drop"), server.request("/short"),
            server.request("/status/500"),
        ]
        var downloads = requests.map {
            NetworkDownloadProcedure(session: testSession, request: $0, downloadDirectory: directory)
        }
        downloads[4].validate()
        let cancelled = NetworkDownloadProcedure(
            session: testSession, request: server.request("/drip?bytes=900&interval_ms=20"),
            downloadDirectory: directory)
        let timedOut = NetworkDownloadProcedure(
            session: testSession, request: server.request("/drip?bytes=900&interval_ms=20"),
            downloadDirectory: directory)
        timedOut.addObserver(TimeoutObserver(by: 0.2))
        cancelled.addDidExecuteBlockObserver { download in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { download.cancel() }
        }
        downloads += [cancelled, timedOut]
        ProcedureQueue().add(procedures: downloads)
        await finished(downloads)
        let allFailed = downloads.allSatisfy { $0.output.success == nil }
        #expect(allFailed)
        #expect(files(in: directory).isEmpty)
        let left = await TemporaryDownloadFiles.leftSince(before)
        #expect(left.isEmpty, "left in \(before.directory.path): \(left)")
    }

    @Test func aManagedSessionWritesDownloadsInItsOwnTemporaryDirectoryAndLeavesItEmpty() async throws {
        let server = try #require(TestServer.start())
        let temporary = makeScratchDirectory()
        let directory = makeScratchDirectory()
        defer {
            try? FileManager.default.removeItem(at: temporary)
            try? FileManager.default.removeItem(at: directory)
        }
        let session = ManagedNetworkSession(temporaryDirectory: temporary)
        defer { session.finishTasksAndInvalidate() }
        #expect(session.temporaryDirectory == temporary)
        let recording = RecordingSession(base: session)
        let ok = NetworkDownloadProcedure(
            session: recording, request: server.request("/bytes?size=70000"), downloadDirectory: directory)
        let empty = NetworkDownloadProcedure(
            session: recording, request: server.request("/bytes?size=0"), downloadDirectory: directory)
        let cut = NetworkDownloadProcedure(
            session: recording, request: server.request("/short"), downloadDirectory: directory)
        await run(ok, empty, cut)
        let file = try #require(ok.output.success?.payload)
        #expect(fileHoldsPattern(file, size: 70_000))
        let emptyFile = try #require(empty.output.success?.payload)
        #expect(fileHoldsPattern(emptyFile, size: 0))
        let failed = cut.output.success == nil && cut.error != nil
        #expect(failed)
        // The session handed out files of its temporary directory, and kept none.
        let locations = recording.locations.value
        #expect(locations.count == 2)
        #expect(
            locations.allSatisfy { $0.deletingLastPathComponent().lastPathComponent == temporary.lastPathComponent })
        #expect(files(in: temporary).isEmpty)
    }

    /// The procedure's own download directory missing, the session's file is still deleted (by the session, after the
    /// handler returns).
    @Test func aSessionFileTheHandlerDidNotMoveIsDeletedAfterIt() async throws {
        let server = try #require(TestServer.start())
        let temporary = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        let session = ManagedNetworkSession(temporaryDirectory: temporary)
        defer { session.finishTasksAndInvalidate() }
        let seen = Box<[Bool]>([])
        let done = DispatchSemaphore(value: 0)
        let task = session.downloadTask(with: server.request("/bytes?size=10")) { location, _, _ in
            seen.update { $0.append(location.map { FileManager.default.fileExists(atPath: $0.path) } ?? false) }
            done.signal()
        }
        task.resume()
        await onThreadOfItsOwn { done.wait() }
        #expect(seen.value == [true])
        await eventually("the session to delete the file") { files(in: temporary).isEmpty }
    }
}
