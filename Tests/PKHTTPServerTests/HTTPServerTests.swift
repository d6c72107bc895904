import Dispatch
import Foundation
import PKCore
import Testing

@testable import PKHTTPServer

/// The server over real TCP on 127.0.0.1. Serialized: the descriptor count of the randomized test must see only
/// its own connections.
@Suite(.serialized) struct HTTPServerTests {

    @Test func theEphemeralPortIsReadableOnceStarted() throws {
        let server = HTTPServer { _ in .text("ok") }
        #expect(server.port == nil)
        try server.start()
        defer { server.shutdown() }
        #expect((server.port ?? 0) > 0)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let (server, port) = try startedServer(handler: { request in
            .text("\(request.path) from \(request.peerAddress)")
        })
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        for index in 0..<3 {
            client.send(get("/n/\(index)"))
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(response.text.hasPrefix("/n/\(index) from 127.0.0.1:"))
            #expect(response.headers["Connection"] == nil)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let (server, port) = try startedServer()
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send(get("/1") + get("/2") + get("/3", "Connection: close\r\n"))
        #expect(client.readResponse()?.text == "hello /1")
        #expect(client.readResponse()?.text == "hello /2")
        let last = try #require(client.readResponse())
        #expect(last.text == "hello /3")
        #expect(last.headers["Connection"] == "close")
        #expect(client.waitForClose())
    }

    @Test func connectionCloseClosesAfterTheResponse() throws {
        let (server, port) = try startedServer()
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send(get("/bye", "Connection: close\r\n"))
        let response = try #require(client.readResponse())
        #expect(response.status == 200)
        #expect(response.headers["Connection"] == "close")
        #expect(client.waitForClose())
    }

    @Test func http10RequestsAreAnsweredAndClosed() throws {
        let (server, port) = try startedServer()
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send("GET /old HTTP/1.0\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.text == "hello /old")
        #expect(response.headers["Connection"] == "close")
        #expect(client.waitForClose())
    }

    @Test func headIsAnsweredWithTheLengthButNoBody() throws {
        let (server, port) = try startedServer()
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send("HEAD /x HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try #require(client.readResponse(bodyless: true))
        #expect(head.headers["Content-Length"] == "8")
        client.send(get("/y"))
        #expect(client.readResponse()?.text == "hello /y")
    }

    @Test func bodiesReachTheHandlerAfterAContinueWhenAsked() throws {
        let (server, port) = try startedServer(handler: { request in .text("\(request.method) \(request.bodyText)") })
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        #expect(client.readResponse()?.text == "POST hello")
        client.send("PUT /p HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        let interim = client.readUntil { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        #expect(String(decoding: interim, as: UTF8.self).hasPrefix("HTTP/1.1 100 Continue\r\n\r\n"))
        client.send("abc")
        #expect(client.readResponse()?.text == "PUT abc")
    }

    @Test func defaultHeadersAreAddedToHandlerAndErrorResponses() throws {
        let (server, port) = try startedServer({
            $0.defaultHeaders = ["X-Frame-Options": "DENY", "Content-Type": "text/x-default"]
        })
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send(get("/"))
        let response = try #require(client.readResponse())
        #expect(response.headers["X-Frame-Options"] == "DENY")
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        let refused = try TestClient(port: port)
        refused.send("BAD\r\n\r\n")
        let error = try #require(refused.readResponse())
        #expect(error.status == 400)
        #expect(error.headers["X-Frame-Options"] == "DENY")
        #expect(error.headers["Content-Length"] == String(error.body.count))
    }

    @Test(arguments: [
        ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + String(repeating: "b", count: 600) + "\r\n\r\n", 431),
        ("GET /" + String(repeating: "a", count: 300) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414),
        ("GET /../secret HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /a%2f..%2fb HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: t\r\nX: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501),
        ("GET / HTTP/3.0\r\nHost: t\r\n\r\n", 505),
    ])
    func refusedRequestsAreAnsweredAndClosedAndTheServerGoesOn(request: String, status: Int) throws {
        let (server, port) = try startedServer({
            $0.maxBodyBytes = 1000
            $0.maxHeaderBytes = 512
            $0.maxRequestLineLength = 256
        })
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send(request)
        let response = try #require(client.readResponse())
        #expect(response.status == status)
        #expect(response.headers["Connection"] == "close")
        #expect(client.waitForClose())
        let next = try TestClient(port: port)
        next.send(get("/still"))
        #expect(next.readResponse()?.text == "hello /still")
    }

    @Test func aSlowClientIsCutOffWhileOthersAreServed() throws {
        let (server, port) = try startedServer({ $0.readTimeout = .milliseconds(200) })
        defer { server.shutdown() }
        let slow = try TestClient(port: port)
        slow.send("GET / HTTP/1.1\r\n")
        var served = 0
        var cutOff = false
        let giveUp = ContinuousClock.now.advanced(by: .seconds(30))
        // One byte of header every 20 ms: never a whole request within the 200 ms read timeout.
        while !cutOff && ContinuousClock.now < giveUp {
            if !slow.send("X") { cutOff = true }
            let other = try TestClient(port: port)
            other.send(get("/fast", "Connection: close\r\n"))
            if other.readResponse()?.text == "hello /fast" { served += 1 }
            Thread.sleep(forTimeInterval: 0.02)
            var probe = pollfd(fd: slow.descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&probe, 1, 0) > 0 { cutOff = true }
        }
        #expect(cutOff)
        #expect(served > 0)
        if let answer = slow.readResponse() { #expect(answer.status == 408) }
        #expect(slow.waitForClose())
    }

    @Test func anIdleKeptAliveConnectionIsClosedAfterTheIdleTimeout() throws {
        let (server, port) = try startedServer({ $0.idleTimeout = .milliseconds(200) })
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send(get("/"))
        #expect(client.readResponse()?.status == 200)
        #expect(client.waitForClose())
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheReadTimeout() throws {
        let (server, port) = try startedServer({ $0.readTimeout = .milliseconds(200) })
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        #expect(client.waitForClose())
    }

    @Test func connectionsOverTheCapGet503UntilOneCloses() throws {
        let (server, port) = try startedServer({ $0.maxConnections = 2 })
        defer { server.shutdown() }
        var held: [TestClient] = []
        for _ in 0..<2 {
            let client = try TestClient(port: port)
            client.send(get("/held"))
            #expect(client.readResponse()?.status == 200)
            held.append(client)
        }
        let excess = try TestClient(port: port)
        let refused = try #require(excess.readResponse())
        #expect(refused.status == 503)
        #expect(excess.waitForClose())

        held.removeFirst()
        // The server notices the close on its own time: retry within a generous bound.
        var status = 0
        let giveUp = ContinuousClock.now.advanced(by: .seconds(30))
        while status != 200 && ContinuousClock.now < giveUp {
            let client = try TestClient(port: port)
            client.send(get("/again"))
            status = client.readResponse()?.status ?? 0
            if status != 200 { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(status == 200)
    }

    @Test func startingTwiceOrAfterShutdownFailsWithACode() throws {
        let server = HTTPServer { _ in .text("ok") }
        try server.start()
        #expect(throws: HTTPServerError.self) { try server.start() }
        do {
            try server.start()
        } catch {
            #expect(error.code == .alreadyStarted)
        }
        #expect(server.shutdown())
        do {
            try server.start()
            Issue.record("a shut down server started")
        } catch {
            #expect(error.code == .shutDown)
        }
    }

    @Test func aPortInUseFailsToBind() throws {
        let (server, port) = try startedServer()
        defer { server.shutdown() }
        let second = HTTPServer(configuration: .init(host: "127.0.0.1", port: port)) { _ in .text("") }
        do {
            try second.start()
            Issue.record("bound a port in use")
        } catch {
            #expect(error.code == .bind)
            #expect(error.systemError == EADDRINUSE)
        }
        #expect(second.shutdown())
    }

    @Test func theIPv6LoopbackCanBeBoundWhereTheSystemHasIt() throws {
        let server = HTTPServer(configuration: .init(host: "::1", port: 0)) { request in .text(request.peerAddress) }
        do {
            try server.start()
        } catch {
            // No IPv6 on this machine (some containers): nothing to test.
            #expect(error.code == .invalidAddress || error.code == .bind || error.code == .socket)
            return
        }
        defer { server.shutdown() }
        let client = try TestClient(port: try #require(server.port), ipv6: true)
        client.send(get("/"))
        #expect(client.readResponse()?.text.hasPrefix("[::1]:") == true)
    }

    @Test func anUnresolvableHostIsAnInvalidAddress() {
        let server = HTTPServer(configuration: .init(host: "no such host.invalid", port: 0)) { _ in .text("") }
        do {
            try server.start()
            Issue.record("started on an invalid host")
        } catch {
            #expect(error.code == .invalidAddress)
        }
    }

    @Test func shutdownClosesIdleConnectionsAndStopsListening() throws {
        let server = HTTPServer(configuration: .init()) { _ in .text("ok") }
        try server.start()
        let port = try #require(server.port)
        let client = try TestClient(port: port)
        client.send(get("/"))
        #expect(client.readResponse()?.status == 200)
        #expect(server.shutdown())
        #expect(client.waitForClose())
        #expect(throws: (any Error).self) { try TestClient(port: port) }
        #expect(server.shutdown())
    }

    @Test func shutdownLetsAHandlerInFlightAnswerThenCloses() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = HTTPServer { _ in
            entered.signal()
            release.wait()
            return .text("finished")
        }
        try server.start()
        let client = try TestClient(port: try #require(server.port))
        client.send(get("/slow"))
        #expect(entered.wait(timeout: .now() + 20) == .success)
        let stopped = DispatchSemaphore(value: 0)
        let drained = PKMutex<Bool?>(nil)
        DispatchQueue.global().async {
            let result = server.shutdown()
            drained.withLock { $0 = result }
            stopped.signal()
        }
        Thread.sleep(forTimeInterval: 0.05)
        release.signal()
        let response = try #require(client.readResponse())
        #expect(response.text == "finished")
        #expect(response.headers["Connection"] == "close")
        #expect(client.waitForClose())
        #expect(stopped.wait(timeout: .now() + 20) == .success)
        #expect(drained.withLock { $0 } == true)
    }

    @Test func shutdownGivesUpOnAStuckHandlerAfterItsBound() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var configuration = HTTPServer.Configuration()
        configuration.shutdownTimeout = .milliseconds(100)
        let server = HTTPServer(configuration: configuration) { _ in
            entered.signal()
            release.wait()
            return .text("late")
        }
        try server.start()
        let client = try TestClient(port: try #require(server.port))
        client.send(get("/stuck"))
        #expect(entered.wait(timeout: .now() + 20) == .success)
        #expect(server.shutdown() == false)
        release.signal()
        // The handler's thread writes nothing into the shut down socket and closes it.
        #expect(client.waitForClose())
    }
}
