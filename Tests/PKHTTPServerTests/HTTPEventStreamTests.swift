import Dispatch
import Foundation
import PKCore
import Testing

@testable import PKHTTPServer

extension HTTPServerTests {

    /// Counts the stream closures that returned, so that a test can wait for one.
    final class StreamEnds: Sendable {
        let ended = DispatchSemaphore(value: 0)
        let sent = PKMutex(0)
    }

    private static func ticking(_ ends: StreamEnds) -> HTTPServer.Handler {
        { _ in
            .eventStream { stream in
                defer { ends.ended.signal() }
                var number = 0
                while stream.wait(for: .milliseconds(10)) {
                    number += 1
                    guard stream.send(data: "tick \(number)\nline two", event: "tick", id: "\(number)") else { return }
                    ends.sent.withLock { $0 += 1 }
                }
            }
        }
    }

    /// The complete events after the response's head.
    private static func events(in bytes: [UInt8]) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return [] }
        return Array(text[headEnd.upperBound...].components(separatedBy: "\n\n").dropLast())
    }

    @Test func anEventStreamIsReceivedAndEndedByShutdown() throws {
        let ends = StreamEnds()
        let server = HTTPServer(handler: Self.ticking(ends))
        try server.start()
        let client = try TestClient(port: try #require(server.port))
        client.send(get("/events"))
        let head = client.readUntil { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        let headText = String(decoding: head, as: UTF8.self)
        #expect(headText.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(headText.contains("Content-Type: text/event-stream\r\n"))
        #expect(headText.contains("Cache-Control: no-cache\r\n"))
        #expect(headText.contains("Connection: close\r\n"))
        #expect(!headText.contains("Content-Length"))
        let received = client.readUntil { Self.events(in: $0).count >= 3 }
        #expect(Self.events(in: received).first == "event: tick\nid: 1\ndata: tick 1\ndata: line two")

        #expect(server.shutdown())
        #expect(ends.ended.wait(timeout: .now() + 20) == .success)
        #expect(client.waitForClose())
    }

    @Test func anEventStreamEndsWhenTheClientGoes() throws {
        let ends = StreamEnds()
        let (server, port) = try startedServer(handler: Self.ticking(ends))
        defer { server.shutdown() }
        var client: TestClient? = try TestClient(port: port)
        client?.send(get("/events"))
        _ = client?.readUntil { Self.events(in: $0).count >= 2 }
        client = nil
        #expect(ends.ended.wait(timeout: .now() + 20) == .success)
    }

    @Test func anEventStreamCanBeFedFromAnotherThread() throws {
        let ends = StreamEnds()
        let (server, port) = try startedServer(handler: { _ in
            .eventStream { stream in
                let group = DispatchGroup()
                for sender in 0..<4 {
                    DispatchQueue.global().async(group: group) {
                        for index in 0..<25 { stream.send(data: "\(sender)-\(index)") }
                    }
                }
                group.wait()
                ends.ended.signal()
                _ = stream.wait(for: .seconds(30))
            }
        })
        defer { server.shutdown() }
        let client = try TestClient(port: port)
        client.send(get("/events"))
        let received = client.readUntil { Self.events(in: $0).count >= 100 }
        #expect(ends.ended.wait(timeout: .now() + 20) == .success)
        // Every event arrives whole.
        let events = Self.events(in: received)
        #expect(events.count == 100)
        #expect(events.allSatisfy { $0.hasPrefix("data: ") && !$0.dropFirst(6).contains("data") })
    }
}
