#if Postgres
    import Dispatch
    import Foundation
    import PKHTTPServer
    import PKJobsDashboard
    import PKPostgres

    /// `pk-jobs serve`: the dashboard on `bind:port` until SIGINT or SIGTERM. Prints its URL (one line) on standard
    /// output once it listens. Refuses a non-loopback address without `PK_JOBS_TOKEN` (exit status 2), and a schema
    /// that was never migrated (exit status 1).
    enum Serve {
        static func run(_ commandLine: JobsCommandLine, bind: String, port: Int, readOnly: Bool) async -> Never {
            let token = ProcessInfo.processInfo.environment["PK_JOBS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            let loopback = DashboardAccess.isLoopbackAddress(bind)
            guard loopback || token != nil else {
                fail(
                    "serve refuses to listen on \(bind) without a token: set PK_JOBS_TOKEN, or bind 127.0.0.1",
                    status: 2)
            }
            if !loopback, let token, token.utf8.count < 16 {
                fail("PK_JOBS_TOKEN must have at least 16 bytes to listen on \(bind)", status: 2)
            }
            let queue: DurableQueue
            do {
                // A request never waits long behind a lock a worker holds, nor on a statement gone astray.
                queue = try DurableQueue(
                    connectionString: commandLine.database, schema: commandLine.schema, migration: .manual,
                    statementTimeout: .seconds(30), lockTimeout: .seconds(5))
                // Fails now, with the reason, when the database or the schema is not there.
                _ = try await queue.queueStatistics()
            } catch let error as DurableError {
                fail(error.description, status: error.isUsageError ? 2 : 1)
            } catch {
                fail("\(error)", status: 1)
            }
            let dashboard = Dashboard(
                queue: queue, access: DashboardAccess(token: token, loopback: loopback), readOnly: readOnly)
            var configuration = HTTPServer.Configuration(host: bind, port: UInt16(port))
            // The server's own answers (400, 408, 413, 414, 431, 503) carry the dashboard's headers too.
            configuration.defaultHeaders = HTTPHeaders(Dashboard.securityHeaders.map { (name: $0.0, value: $0.1) })
            let server = HTTPServer(configuration: configuration) { dashboard.respond(to: $0) }
            do {
                try server.start()
            } catch {
                fail("could not listen on \(bind):\(port): \(error)", status: 1)
            }
            let host = bind.contains(":") ? "[\(bind)]" : bind
            // Written straight to the descriptor: a line a parent process reads at once, with no buffer between.
            FileHandle.standardOutput.write(Data("http://\(host):\(server.port ?? UInt16(port))/\n".utf8))
            // Until SIGINT or SIGTERM: then stop taking connections, finish the requests in flight, exit.
            let stop = DispatchSemaphore(value: 0)
            let sources = [SIGINT, SIGTERM].map { signalNumber in
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { stop.signal() }
                source.resume()
                return source
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread {
                    stop.wait()
                    continuation.resume()
                }.start()
            }
            for source in sources { source.cancel() }
            _ = server.shutdown()
            exit(0)
        }
    }

    extension DurableError {
        /// Whether the error is the user's (exit status 2) rather than the database's (1).
        var isUsageError: Bool {
            switch self {
            case .invalidSchemaName, .invalidOption: true
            default: false
            }
        }
    }
#endif
