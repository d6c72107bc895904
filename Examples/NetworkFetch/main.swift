// NetworkFetch: fetches a URL with PKNetwork, retrying as ProcedureKit's NetworkProcedure does.
//
//   swift run NetworkFetch                 # offline: starts a loopback server and fetches from it
//   swift run NetworkFetch https://example.com/
//
// With no argument the example serves two pages on 127.0.0.1: /hello, and /flaky, which answers 503 with
// Retry-After: 1 the first time, so the NetworkProcedure retries it once.
import Foundation
import PKNetwork

let session = ManagedNetworkSession()
let queue = ProcedureQueue()

/// Fetches `url`, retrying with a short backoff, and prints what came back.
func fetch(_ url: URL) async -> Bool {
    let resilience = DefaultNetworkResilience(
        maximumNumberOfAttempts: 3, backoffStrategy: .constant(0.5), requestTimeout: 10)
    let procedure = NetworkProcedure(resilience: resilience) {
        NetworkDataProcedure(session: session, request: URLRequest(url: url)).validate()
    }
    do {
        let response = try await queue.run(procedure)
        let text = String(decoding: response.payload ?? Data(), as: UTF8.self)
        print("GET \(url) -> \(response.statusCode) after \(procedure.count) attempt(s), \(text.utf8.count) bytes")
        print(text.prefix(300))
        return true
    } catch let error as HTTPStatusError {
        print("GET \(url) -> \(error)")
    } catch {
        print("GET \(url) failed after \(procedure.count) attempt(s): \(error)")
    }
    return false
}

var succeeded = true
if let argument = CommandLine.arguments.dropFirst().first {
    guard let url = URL(string: argument) else {
        print("not a URL: \(argument)")
        exit(2)
    }
    succeeded = await fetch(url)
} else {
    let server = try LoopbackServer()
    print("Serving on 127.0.0.1:\(server.port)")
    for path in ["/hello", "/flaky"] {
        succeeded = await fetch(URL(string: "http://127.0.0.1:\(server.port)\(path)")!) && succeeded
    }
}
session.finishTasksAndInvalidate()
exit(succeeded ? 0 : 1)
