#if Postgres
    import Foundation
    import PKTesting
    #if canImport(Glibc)
        import Glibc
    #endif

    /// A client of the W3C WebDriver protocol, enough to drive headless Chromium through Debian's `chromedriver`
    /// (Scripts/chromium.sh installs both): open a page, find elements by CSS selector, read their text, click,
    /// run a script, take a screenshot. Plain JSON over HTTP to the driver on 127.0.0.1; no Selenium.
    ///
    /// Thread-safe: immutable once made; each call is one request, answered before it returns.
    final class WebDriver: Sendable {
        /// A failed command: the driver's error and message, or a transport failure.
        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        /// An element of the page, by the driver's reference.
        struct Element: Sendable, Hashable {
            let reference: String
        }

        /// The key under which the protocol returns an element's reference.
        private static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

        /// Started with the default dispositions of SIGTERM and SIGINT (a `Process` would inherit this test
        /// process's, where they may be ignored, and never stop).
        let driver: ChildProcess
        let base: URL
        let session: String

        /// Starts `chromedriver` on a free loopback port and opens a session of headless Chromium.
        init(
            chromedriver: String, chromium: String, logPath: String? = nil,
            windowSize: (width: Int, height: Int) = (1_280, 900)
        ) throws {
            let port = try Self.freePort()
            let process = try ChildProcess(
                executable: chromedriver,
                arguments: ["--port=\(port)", "--allowed-ips=127.0.0.1"] + (logPath.map { ["--log-path=\($0)"] } ?? []))
            driver = process
            base = URL(string: "http://127.0.0.1:\(port)")!
            // The driver answers /status once it listens.
            let deadline = Date().addingTimeInterval(30)
            while true {
                do {
                    _ = try Self.request("GET", base.appendingPathComponent("status"), nil)
                    break
                } catch {
                    guard Date() < deadline else {
                        process.send(SIGKILL)
                        _ = process.waitForExit(timeout: 10)
                        throw Failure(description: "chromedriver did not start on port \(port): \(error)")
                    }
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
            let capabilities: [String: Any] = [
                "capabilities": [
                    "alwaysMatch": [
                        "browserName": "chrome",
                        "goog:chromeOptions": [
                            "binary": chromium,
                            "args": [
                                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                "--window-size=\(windowSize.width),\(windowSize.height)", "--no-first-run",
                                "--disable-extensions", "--disable-background-networking",
                            ],
                        ],
                    ]
                ]
            ]
            do {
                let value = try Self.request("POST", base.appendingPathComponent("session"), capabilities)
                guard let session = (value as? [String: Any])?["sessionId"] as? String else {
                    throw Failure(description: "no session id in \(String(describing: value))")
                }
                self.session = session
            } catch {
                process.send(SIGKILL)
                _ = process.waitForExit(timeout: 10)
                throw error
            }
        }

        /// Ends the session (the browser quits) and stops the driver.
        func quit() {
            _ = try? command("DELETE", "", nil)
            driver.send(SIGTERM)
            _ = driver.waitForExit(timeout: 10)
        }

        // MARK: - Commands

        /// Opens `url`.
        func open(_ url: String) throws { _ = try command("POST", "/url", ["url": url]) }

        /// The elements `selector` matches now.
        func elements(_ selector: String) throws -> [Element] {
            let value = try command("POST", "/elements", ["using": "css selector", "value": selector])
            return ((value as? [[String: Any]]) ?? []).compactMap { ($0[Self.elementKey] as? String).map(Element.init) }
        }

        /// The first element `selector` matches, waiting up to `timeout` for one to appear.
        func element(_ selector: String, timeout: TimeInterval = 30) throws -> Element {
            var found: Element?
            try waitFor("an element matching \(selector)", timeout: timeout) {
                found = try elements(selector).first
                return found != nil
            }
            return found!
        }

        /// The element's rendered text.
        func text(_ element: Element) throws -> String {
            (try command("GET", "/element/\(element.reference)/text", nil) as? String) ?? ""
        }

        /// The element's attribute or property `name`.
        func attribute(_ element: Element, _ name: String) throws -> String? {
            try command("GET", "/element/\(element.reference)/attribute/\(name)", nil) as? String
        }

        /// Clicks the element.
        func click(_ element: Element) throws { _ = try command("POST", "/element/\(element.reference)/click", [:]) }

        // MARK: - By selector, again and again
        //
        // A page that redraws itself (the dashboard does every two seconds) replaces its elements: one found a moment
        // ago may be gone ("stale element reference"). These find the element afresh for each try, until `timeout`.

        /// Clicks the first element `selector` matches.
        func click(_ selector: String, timeout: TimeInterval = 30) throws {
            try waitFor("a click on \(selector)", timeout: timeout) {
                guard let element = try elements(selector).first else { return false }
                try click(element)
                return true
            }
        }

        /// The text of the first element `selector` matches.
        func text(of selector: String, timeout: TimeInterval = 30) throws -> String {
            var found: String?
            try waitFor("the text of \(selector)", timeout: timeout) {
                guard let element = try elements(selector).first else { return false }
                found = try text(element)
                return true
            }
            return found ?? ""
        }

        /// The attribute `name` of the first element `selector` matches (`nil` when it has none).
        func attribute(of selector: String, _ name: String, timeout: TimeInterval = 30) throws -> String? {
            var found: String??
            try waitFor("the attribute \(name) of \(selector)", timeout: timeout) {
                guard let element = try elements(selector).first else { return false }
                found = .some(try attribute(element, name))
                return true
            }
            return found ?? nil
        }

        /// Runs `script` in the page (`return …` gives a value) with `arguments`.
        func execute(_ script: String, _ arguments: [Any] = []) throws -> Any? {
            try command("POST", "/execute/sync", ["script": script, "args": arguments])
        }

        /// The text of an open `alert`, `confirm` or `prompt` dialog, or `nil` when none is open.
        func alertText() -> String? { try? command("GET", "/alert/text", nil) as? String }

        /// Accepts the open dialog (OK).
        func acceptAlert() throws { _ = try command("POST", "/alert/accept", [:]) }

        /// The page's title.
        func title() throws -> String { (try command("GET", "/title", nil) as? String) ?? "" }

        /// A PNG of the window, written to `path` (folders made as needed).
        func screenshot(to path: String) throws {
            guard let encoded = try command("GET", "/screenshot", nil) as? String,
                let data = Data(base64Encoded: encoded)
            else { throw Failure(description: "no screenshot") }
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: path))
        }

        /// Polls `condition` every 100 ms until it holds; throws after `timeout`.
        func waitFor(_ what: String, timeout: TimeInterval = 30, _ condition: () throws -> Bool) throws {
            let deadline = Date().addingTimeInterval(timeout)
            var lastError: (any Error)?
            while Date() < deadline {
                do {
                    if try condition() { return }
                } catch {
                    lastError = error
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            throw Failure(description: "timed out waiting for \(what)\(lastError.map { ": \($0)" } ?? "")")
        }

        // MARK: - Transport

        private func command(_ method: String, _ path: String, _ body: [String: Any]?) throws -> Any? {
            try Self.request(method, URL(string: base.absoluteString + "/session/\(session)" + path)!, body)
        }

        /// One request; returns the answer's `value`, or throws the driver's error.
        ///
        /// Over a socket of its own rather than URLSession: chromedriver writes its header fields without a space
        /// after the colon (`Content-Length:250`), which FoundationNetworking on Linux refuses ("Failed writing
        /// header"). One request per connection (`Connection: close`), read to the end.
        private static func request(_ method: String, _ url: URL, _ body: [String: Any]?) throws -> Any? {
            let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
            var head = "\(method) \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 80)\r\nConnection: close\r\n"
            if body != nil { head += "Content-Type: application/json; charset=utf-8\r\n" }
            head += "Content-Length: \(payload.count)\r\n\r\n"
            let answer = try exchange(Data(head.utf8) + payload, port: url.port ?? 80)
            guard let split = answer.range(of: Data("\r\n\r\n".utf8)) else {
                throw Failure(description: "\(method) \(url.path): no answer's head in \(answer.count) bytes")
            }
            let statusLine = String(decoding: answer[..<split.lowerBound], as: UTF8.self).split(separator: "\r\n").first
            let status = statusLine.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
            let data = answer[split.upperBound...]
            let object = data.isEmpty ? nil : try JSONSerialization.jsonObject(with: Data(data)) as? [String: Any]
            let value = object?["value"]
            guard (200..<300).contains(status) else {
                let detail = value as? [String: Any]
                throw Failure(
                    description:
                        "\(method) \(url.path): \(status) \(detail?["error"] ?? "") \(detail?["message"] ?? "")")
            }
            return value is NSNull ? nil : value
        }

        /// Sends `request` to 127.0.0.1:`port` and reads the answer until the driver closes the connection.
        private static func exchange(_ request: Data, port: Int) throws -> Data {
            #if canImport(Glibc)
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let descriptor = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
            defer { close(descriptor) }
            var timeout = timeval(tv_sec: 120, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw Failure(description: "connect to port \(port): errno \(errno)") }
            var sent = 0
            let bytes = [UInt8](request)
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw Failure(description: "send: errno \(errno)") }
                sent += count
            }
            // Until the body's Content-Length is read (the driver may keep the connection open), or the end.
            var answer = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !isComplete(answer) {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count == 0 { break }
                guard count > 0 else { throw Failure(description: "recv: errno \(errno)") }
                answer.append(contentsOf: buffer[0..<count])
            }
            return answer
        }

        /// Whether `answer` holds a whole head and as many body bytes as its `Content-Length` says.
        private static func isComplete(_ answer: Data) -> Bool {
            guard let split = answer.range(of: Data("\r\n\r\n".utf8)) else { return false }
            let head = String(decoding: answer[..<split.lowerBound], as: UTF8.self)
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "content-length",
                    let length = Int(parts[1].trimmingCharacters(in: .whitespaces))
                {
                    return answer.count - split.upperBound >= length
                }
            }
            return false
        }

        /// A loopback port nobody listens on now.
        private static func freePort() throws -> Int {
            #if canImport(Glibc)
                let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
                let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard socket >= 0 else { throw Failure(description: "no socket") }
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
            }
            guard bound == 0 else { throw Failure(description: "bind failed") }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
#endif
