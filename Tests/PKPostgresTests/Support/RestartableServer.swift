#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting

    /// A PostgreSQL server of one test's own (Scripts/postgres.sh with a folder and a port of its own), which the
    /// test may restart under its workers: the shared server is never restarted, since other suites use it.
    ///
    /// Thread-safe: immutable.
    struct RestartableServer: Sendable {
        /// Whether a test may start one: not under ThreadSanitizer, where tests run one at a time and creating,
        /// starting and restarting a cluster would take most of a test's time.
        static var isAvailable: Bool {
            #if PK_TSAN
                false
            #else
                TestDatabase.isAvailable
            #endif
        }

        /// The repository's Scripts/postgres.sh.
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/postgres.sh").path

        struct ScriptFailed: Error, CustomStringConvertible {
            let description: String
        }

        /// The folder of its data directory and socket.
        let directory: String
        /// The port it listens on (its socket's name; no TCP).
        let port: Int
        /// Its connection string.
        let url: String

        /// Creates (if needed) and starts the server in `directory` on `port`. Blocks.
        static func start(directory: String, port: Int) throws -> RestartableServer {
            let output = try run("start", directory: directory, port: port)
            guard let url = output.split(separator: "\n").last.map(String.init), !url.isEmpty else {
                throw ScriptFailed(description: "postgres.sh start printed no connection string: \(output)")
            }
            return RestartableServer(directory: directory, port: port, url: url)
        }

        /// Creates and starts a server on `port` in a new temporary folder named after `prefix`. Blocks.
        static func start(port: Int, prefix: String) throws -> RestartableServer {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "\(prefix)-\(port)-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
            ).path
            do {
                return try start(directory: directory, port: port)
            } catch {
                try? FileManager.default.removeItem(atPath: directory)
                throw error
            }
        }

        /// Stops the server (a fast shutdown: every session is terminated) and starts it again. Blocks.
        func restart() throws {
            _ = try Self.run("restart", directory: directory, port: port)
        }

        /// Stops the server and removes its folder. Blocks.
        func remove() {
            _ = try? Self.run("stop", directory: directory, port: port)
            try? FileManager.default.removeItem(atPath: directory)
        }

        private static func run(_ command: String, directory: String, port: Int) throws -> String {
            let environment = ProcessInfo.processInfo.environment.merging(
                ["PK_POSTGRES_DIR": directory, "PK_POSTGRES_PORT": String(port)], uniquingKeysWith: { $1 })
            let child = try ChildProcess(
                executable: "/bin/bash", arguments: [script, command], environment: environment)
            let termination = child.waitForExit(timeout: 120)
            guard termination == .exited(0) else {
                throw ScriptFailed(
                    description:
                        "postgres.sh \(command): \(termination.map(\.description) ?? "timeout"): \(child.output)")
            }
            return child.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Starts a ``RestartableServer`` on `port` in a new temporary folder, runs `body` with it, then stops it and
    /// removes the folder, whether `body` returns or throws.
    func withRestartableServer<R>(port: Int, _ body: (RestartableServer) async throws -> R) async throws -> R {
        let server = try await runBlocking { try RestartableServer.start(port: port, prefix: "pk-server") }
        do {
            let value = try await body(server)
            try await runBlocking { server.remove() }
            return value
        } catch {
            try? await runBlocking { server.remove() }
            throw error
        }
    }
#endif
