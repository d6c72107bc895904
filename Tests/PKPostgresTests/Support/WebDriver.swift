#if Postgres
    import Foundation
    #if canImport(FoundationNetworking)
        import FoundationNetworking
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

        let driver: Process
        let base: URL
        let session: String

        /// Starts `chromedriver` on a free loopback port and opens a session of headless Chromium.
        init(chromedriver: String, chromium: String, windowSize: (width: Int, height: Int) = (1_280, 900)) throws {
            let port = try Self.freePort()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: chromedriver)
            process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            driver = process
            base = URL(string: "http://127.0.0.1:\(port)")!
            // The driver answers /status once it listens.
            let deadline = Date().addingTimeInterval(30)
            while (try? Self.request("GET", base.appendingPathComponent("status"), nil)) == nil {
                guard Date() < deadline, process.isRunning else {
                    process.terminate()
                    throw Failure(description: "chromedriver did not start on port \(port)")
                }
                Thread.sleep(forTimeInterval: 0.1)
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
                process.terminate()
                process.waitUntilExit()
                throw error
            }
        }

        /// Ends the session (the browser quits) and stops the driver.
        func quit() {
            _ = try? command("DELETE", "", nil)
            driver.terminate()
            driver.waitUntilExit()
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
        private static func request(_ method: String, _ url: URL, _ body: [String: Any]?) throws -> Any? {
            var request = URLRequest(url: url, timeoutInterval: 60)
            request.httpMethod = method
            if let body {
                request.httpBody = try JSONSerialization.data(withJSONObject: body)
                request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
            }
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var result: Result<(Data, Int), any Error> = .failure(Failure(description: "no answer"))
            let task = URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    result = .failure(error)
                } else {
                    result = .success((data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
                }
                done.signal()
            }
            task.resume()
            done.wait()
            let (data, status) = try result.get()
            let object = data.isEmpty ? nil : try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let value = object?["value"]
            guard (200..<300).contains(status) else {
                let detail = value as? [String: Any]
                throw Failure(
                    description:
                        "\(method) \(url.path): \(status) \(detail?["error"] ?? "") \(detail?["message"] ?? "")")
            }
            return value is NSNull ? nil : value
        }

        /// A loopback port nobody listens on now.
        private static func freePort() throws -> Int {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
