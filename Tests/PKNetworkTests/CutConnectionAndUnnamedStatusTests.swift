import Foundation
import PKNetwork
import PKTesting
import Testing

// Issue 37 item 11: a response cut off after its headers (FoundationNetworking's URLError -1 on Linux) and the 5xx
// statuses HTTPStatusCode does not name (Cloudflare's 520-527, 599) are retried like a reset and like a 500, under
// the same idempotency rule. Checks on errors are evaluated before #expect (see NetworkProcedureTests).

struct CutConnectionAndUnnamedStatusTests {

    @Test func aGetWhoseResponseIsCutOffAfterItsHeadersIsRetried() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=-1,200"))
        }
        await run(fetch)
        let succeeded = fetch.errors.isEmpty && fetch.output.success?.statusCode == 200
        #expect(succeeded)
        #expect(fetch.count == 2)
        #expect(try await requestCount(server, key: key) == 2)
    }

    @Test func aDownloadWhoseResponseIsCutOffIsRetriedAndKeepsOnlyTheWholeFile() async throws {
        let server = try #require(TestServer.start())
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = uniqueKey()
        let download = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDownloadProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=-1,200"),
                downloadDirectory: directory)
        }
        await run(download)
        let file = try #require(download.output.success?.payload)
        #expect(download.count == 2)
        #expect(try Data(contentsOf: file) == Data("attempt 2 status 200".utf8))
        #expect(files(in: directory) == [file.lastPathComponent])
    }

    @Test func aPostWhoseResponseIsCutOffIsNotRepeated() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let upload = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkUploadProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=-1,200", method: "POST"),
                data: Data("once".utf8))
        }
        await run(upload)
        let cut = urlErrorCode(upload.error) == .unknown
        #expect(cut)
        #expect(upload.count == 1)
        #expect(try await requestCount(server, key: key) == 1)
    }

    @Test(arguments: [520, 521, 522, 523, 524, 525, 526, 527, 599])
    func anUnnamedServerErrorIsRetriedLikeA500(status: Int) async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=\(status),200"))
        }
        await run(fetch)
        let succeeded = fetch.errors.isEmpty && fetch.output.success?.statusCode == 200
        #expect(succeeded)
        #expect(fetch.count == 2)
    }

    @Test func anUnnamedServerErrorOutOfAttemptsFailsWithTheValidationsExactStatus() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(attempts: 2), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=522"))
                .validate()
        }
        await run(fetch)
        let status = (fetch.error as? HTTPStatusError)?.statusCode
        #expect(status == 522)
        #expect(fetch.count == 2)
    }

    @Test func anUnnamedServerErrorOutOfAttemptsIsReportedAsItsClassesCode() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(attempts: 2), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=599"))
        }
        await run(fetch)
        let reported =
            fetch.error as? ProcedureKitNetworkResiliencyError == .receivedErrorStatusCode(.internalServerError)
        #expect(reported)
        #expect(fetch.count == 2)
        #expect(fetch.current?.urlResponse?.statusCode == 599)
    }

    @Test func aPostAnsweredWithAnUnnamedServerErrorIsNotRepeated() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let upload = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkUploadProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=520,200", method: "POST"),
                data: Data("once".utf8))
        }
        await run(upload)
        #expect(upload.count == 1)
        #expect(try await requestCount(server, key: key) == 1)
    }

    @Test func anUnnamedClientErrorIsNotRetried() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=460,200"))
        }
        await run(fetch)
        let finishedWithIt = fetch.errors.isEmpty && fetch.output.success?.statusCode == 460
        #expect(finishedWithIt)
        #expect(fetch.count == 1)
    }
}
