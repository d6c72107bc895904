import Foundation
import PKNetwork
import PKTesting
import Testing

// The code of the article "Networking" (PKNetwork.docc/Networking.md), as written there, so that it compiles and
// runs against the test server: keep the two in step (Scripts/docs.sh checks that every example of the article is in
// a test; "Writing your own resilience" is in CustomResilienceTests). The recovery's free names, `session` and
// `tokenRequest`, are defined first.

private let session = testSession

/// The token refresh the recovery runs: the test server's `/token` answers `s3`.
private var tokenRequest: URLRequest {
    (try? TestServer.shared.get())?.request("/token?value=s3") ?? URLRequest(url: URL(string: "http://127.0.0.1:9")!)
}

// "Acting between attempts with NetworkRecovery"

private final class RefreshingRecovery: NetworkRecovery<NetworkDataProcedure>, @unchecked Sendable {
    // @unchecked Sendable: no stored state besides NetworkRecovery's immutable properties.
    override func recover(
        withInfo info: RetryFailureInfo<NetworkDataProcedure>,
        payload: RepeatProcedurePayload<NetworkDataProcedure>
    ) -> RepeatProcedurePayload<NetworkDataProcedure>? {
        guard (info.error as? HTTPStatusError)?.code == .unauthorized, info.count == 1,
            let request = payload.operation.input.value
        else { return super.recover(withInfo: info, payload: payload) }
        let refresh = NetworkDataProcedure(session: session, request: tokenRequest)
        payload.operation.injectResult(from: refresh) { (response: HTTPPayloadResponse<Data>) in
            var authorized = request
            let token = String(decoding: response.payload ?? Data(), as: UTF8.self)
            authorized.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return authorized
        }
        info.addOperations(refresh)  // runs before the next attempt, cancelled with the procedure
        return payload.set(delay: nil)  // no backoff: the refresh is the wait
    }
}

@Suite(.timeLimit(.minutes(1)))
struct NetworkingGuideTests {

    @Test func theOverviewsRequest() async throws {
        let server = try #require(TestServer.start())
        let url = server.url("/text")

        let session = ManagedNetworkSession()  // .ephemeral, safe to invalidate
        let queue = ProcedureQueue()

        let fetch = NetworkDataProcedure(session: session, request: URLRequest(url: url)).validate()
        let response = try await queue.run(fetch)  // HTTPPayloadResponse<Data>; cancelling the Task cancels the request
        // End of the article's example.
        #expect(response.payload == Data("hello".utf8))
    }

    @Test func retryingWithNetworkProcedure() async throws {
        let server = try #require(TestServer.start())
        let url = server.url("/text")
        let fetch = NetworkProcedure(resilience: DefaultNetworkResilience(requestTimeout: 10)) {
            NetworkDataProcedure(session: session, request: URLRequest(url: url)).validate()
        }
        // End of the article's example.
        let response = try await ProcedureQueue().run(fetch)
        #expect(response.statusCode == 200)
    }

    @Test func theRecoveryRefreshesTheTokenAfterA401() async throws {
        let server = try #require(TestServer.start())
        let request = server.request("/auth/\(uniqueKey())?token=s3")
        let fetch = NetworkProcedure(recovery: RefreshingRecovery(resilience: DefaultNetworkResilience())) {
            NetworkDataProcedure(session: session, request: request).validate()
        }
        // End of the article's example.
        let response = try await ProcedureQueue().run(fetch)
        #expect(fetch.count == 2)
        #expect(response.payload == Data("authorized".utf8))
    }
}
