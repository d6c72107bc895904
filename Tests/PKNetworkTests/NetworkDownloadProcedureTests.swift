import Foundation
import PKNetwork
import PKTesting
import Testing

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

    @Test func largeDownloadArrivesIntactWithoutHoldingTheBodyInMemory() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 96 << 20
        let before = residentBytes()
        let download = NetworkDownloadProcedure(
            session: testSession, request: server.request("/bytes?size=\(size)"), downloadDirectory: directory)
        await run(download)
        let grown = residentBytes() - before
        let file = try #require(download.output.success?.payload)
        #expect(fileHoldsPattern(file, size: size))
        // The body goes to disk, so the process does not grow by anything like the 96 MB it downloaded. Not under
        // ThreadSanitizer, whose shadow memory grows with every byte any parallel test touches.
        #if !PK_TSAN
            #expect(grown < size / 2, "resident memory grew by \(grown >> 20) MB")
        #else
            _ = grown
        #endif
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
        #expect(error.statusCode == 503)
        #expect(error.bodyText == "status 503")
        #expect(files(in: directory).isEmpty)
    }

    @Test func cancelledDownloadLeavesNoFile() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let completed = Box(false)
        let download = NetworkDownloadProcedure(
            session: testSession, request: server.request("/drip?bytes=200&interval_ms=50"),
            downloadDirectory: directory
        ) { _ in completed.update { $0 = true } }
        ProcedureQueue().add(procedure: download)
        await eventually("the download to start") { download.isExecuting }
        try await Task.sleep(for: .milliseconds(100))
        download.cancel()
        await finished([download])
        #expect(download.isCancelled)
        #expect(download.errors.isEmpty)
        #expect(!completed.value)
        #expect(files(in: directory).isEmpty)
    }

    @Test func missingInputFailsWithRequirementNotSatisfied() async {
        let download = NetworkDownloadProcedure(session: testSession)
        await run(download)
        #expect((download.error as? ProcedureKitError)?.context == .requirementNotSatisfied)
    }

    @Test func connectionFailureIsTheProcedureError() async {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!)
        let download = NetworkDownloadProcedure(session: testSession, request: request)
        await run(download)
        #expect(urlErrorCode(download.error) == .cannotConnectToHost)
    }
}

/// The process's resident set size, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
