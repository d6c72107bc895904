import Foundation
import PKNetwork
import PKTesting
import Testing

struct AsyncTests {

    @Test func runReturnsTheResponse() async throws {
        let server = try #require(TestServer.start())
        let response = try await ProcedureQueue().run(
            NetworkDataProcedure(session: testSession, request: server.request("/text")))
        #expect(response.statusCode == 200)
        #expect(response.payload == Data("hello".utf8))
    }

    @Test func runThrowsTheValidationError() async throws {
        let server = try #require(TestServer.start())
        await #expect(throws: HTTPStatusError.self) {
            try await ProcedureQueue().run(
                NetworkDataProcedure(session: testSession, request: server.request("/status/418")).validate())
        }
    }

    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/slow?ms=90000"))
        let task = Task { try await ProcedureQueue().run(fetch) }
        await eventually("the request to start", timeout: startTimeout) { fetch.isExecuting }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(fetch.isCancelled)
        #expect(fetch.isFinished)
    }
}
