#if Postgres
    import Foundation
    import PKTesting

    /// A PostgreSQL server of one test's own, run by the repository's Scripts/postgres.sh in a temporary folder with
    /// a port of its own: the test may restart it, or end every connection to it, without disturbing other suites.
    /// Every method blocks: call them off the cooperative pool.
    struct OwnPostgresServer: Sendable {
        /// The repository's Scripts/postgres.sh.
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/postgres.sh").path

        /// The folder holding the data directory, the log and the socket.
        let directory: String
        /// Names the socket (no TCP).
        let port: Int
        /// The libpq connection string, once started.
        let url: String

        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        /// Creates a cluster in a new temporary folder and starts it on `port`.
        static func start(port: Int, prefix: String) throws -> OwnPostgresServer {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "\(prefix)-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
            ).path
            let output = try run("start", directory: directory, port: port)
            guard let url = output.split(separator: "\n").last.map(String.init), url.hasPrefix("host=") else {
                throw Failure(description: "postgres.sh start printed no connection string: \(output)")
            }
            return OwnPostgresServer(directory: directory, port: port, url: url)
        }

        /// Stops the server (fast: sessions are ended, their transactions rolled back) and starts it again.
        func restart() throws { _ = try Self.run("restart", directory: directory, port: port) }

        /// Stops the server and removes its folder.
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
                throw Failure(
                    description:
                        "postgres.sh \(command): \(termination.map(\.description) ?? "timed out"): \(child.output)")
            }
            return child.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
#endif
