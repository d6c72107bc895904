import Foundation
import PKNetwork
import PKTesting
import Testing

/// A retried download keeps only the file the caller gets (found by the randomized fault suite).
struct RetriedDownloadTests {

    /// A 500 then a 200: the first attempt's body was downloaded too, and used to stay in the directory beside the
    /// output. Only the output's file remains.
    @Test func aRetriedDownloadLeavesOnlyItsOutputsFile() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = uniqueKey()
        let download = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDownloadProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=500,200"),
                downloadDirectory: directory)
        }
        await run(download)
        let file = try #require(download.output.success?.payload)
        #expect(download.output.success?.statusCode == 200)
        #expect(files(in: directory) == [file.lastPathComponent])
    }

    /// Out of attempts on a 503: the last attempt's file stays with its output (the caller owns it); the earlier
    /// attempts' files are gone.
    @Test func aDownloadOutOfAttemptsKeepsOnlyTheLastAttemptsFile() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let download = NetworkProcedure(resilience: quickResilience(attempts: 3), monitor: connectedMonitor()) {
            NetworkDownloadProcedure(
                session: testSession, request: server.request("/status/503"), downloadDirectory: directory)
        }
        await run(download)
        #expect(download.error != nil)
        let remaining = files(in: directory)
        #expect(remaining.count <= 1)
        if let file = download.output.success?.payload {
            #expect(remaining == [file.lastPathComponent])
        }
    }
}
