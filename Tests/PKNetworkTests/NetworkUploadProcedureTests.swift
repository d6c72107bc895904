import Foundation
import PKNetwork
import PKTesting
import Testing

// Checks on errors are evaluated before #expect: on failure Swift Testing reflects the operands, and reflecting
// values such as FoundationNetworking's URLError (whose user info holds the task) is the likely cause of a crash
// seen once in a full run.

struct NetworkUploadProcedureTests {

    @Test(arguments: ["POST", "PUT"])
    func uploadSendsTheBodyWhichTheServerEchoes(method: String) async throws {
        let server = try #require(TestServer.start())
        let body = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let upload = NetworkUploadProcedure(
            session: testSession, request: server.request("/echo", method: method), data: body)
        await run(upload)
        let response = try #require(upload.output.success)
        #expect(response.payload == body)
        #expect(response.response.value(forHTTPHeaderField: "X-Echo-Method") == method)
    }

    @Test func nilPayloadSendsAnEmptyBodyInsteadOfCrashing() async throws {
        let server = try #require(TestServer.start())
        let upload = NetworkUploadProcedure(session: testSession, request: server.request("/echo", method: "POST"))
        await run(upload)
        #expect(upload.output.success?.payload == Data())
    }

    @Test func noContentTypeIsAddedAndASetOneIsSent() async throws {
        let server = try #require(TestServer.start())
        var typed = server.request("/echo", method: "POST")
        typed.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let plain = NetworkUploadProcedure(
            session: testSession, request: server.request("/echo", method: "POST"), data: Data("{}".utf8))
        let json = NetworkUploadProcedure(session: testSession, request: typed, data: Data("{}".utf8))
        await run(plain, json)
        #expect(plain.urlResponse?.value(forHTTPHeaderField: "X-Echo-Content-Type") == nil)
        #expect(json.urlResponse?.value(forHTTPHeaderField: "X-Echo-Content-Type") == "application/json")
    }

    @Test func injectedPayloadRequestIsSent() async throws {
        let server = try #require(TestServer.start())
        let upload = NetworkUploadProcedure(session: testSession)
        upload.input = .ready(
            HTTPPayloadRequest(payload: Data("abc".utf8), request: server.request("/echo", method: "POST")))
        await run(upload)
        #expect(upload.output.success?.payload == Data("abc".utf8))
        #expect(upload.networkRequest?.httpMethod == "POST")
    }

    @Test func missingInputFailsWithRequirementNotSatisfied() async {
        let upload = NetworkUploadProcedure(session: testSession)
        await run(upload)
        let check1 = (upload.error as? ProcedureKitError)?.context == .requirementNotSatisfied
        #expect(check1)
    }

    @Test func validationFailureCarriesStatusAndBody() async throws {
        let server = try #require(TestServer.start())
        let upload = NetworkUploadProcedure(
            session: testSession, request: server.request("/status/422", method: "POST"), data: Data("x".utf8)
        ).validate()
        await run(upload)
        let error = try #require(upload.error as? HTTPStatusError)
        let check2 = error.code == .unprocessableEntity
        #expect(check2)
        let check3 = error.bodyText == "status 422"
        #expect(check3)
    }
}
