#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting
    import Testing

    @testable import PKPostgres

    /// Passwords never reach an error message (and so the logs), whatever libpq or the server echoes back.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"))
    struct ConnectionSecretsTests {

        @Test(arguments: [
            ("postgresql://app:S3cret-pw@db.example:5432/app", ["S3cret-pw"]),
            ("postgres://app:p%40ss%25word@db/app?sslmode=require", ["p%40ss%25word", "p@ss%word"]),
            ("postgresq://someone:Typo-Scheme-pw@db.example/app", ["Typo-Scheme-pw"]),
            ("postgresql://db.example/app?user=app&password=QueryPass1", ["QueryPass1"]),
            ("host=db user=app password=KeyValuePw dbname=app", ["KeyValuePw"]),
            ("host=db password = 'quoted \\' pw' dbname=app", ["'quoted \\' pw'", "quoted ' pw"]),
            ("host=db sslpassword=KeyPass dbname=app", ["KeyPass"]),
            ("host=db user=app dbname=app", []),
            ("postgresql://app@db/app", []),
        ])
        func theSecretsOfAConnectionStringAreFound(connectionString: String, expected: [String]) {
            #expect(Set(ConnectionSecrets(connectionString).secrets) == Set(expected))
        }

        @Test func redactingReplacesEverySecretWholeAndLeavesTheRestOfTheMessage() {
            let secrets = ConnectionSecrets("postgresql://app:pass%21word@db/app")
            let message = #"invalid percent-encoded token: "pass%21word"; or "pass!word" twice: pass!word"#
            let redacted = secrets.redact(message)
            #expect(!redacted.contains("pass"))
            #expect(redacted.hasPrefix("invalid percent-encoded token: "))
            #expect(redacted.components(separatedBy: ConnectionSecrets.replacement).count == 4)
        }

        /// The test server's socket directory and port, from its key=value connection string.
        static func serverAddress() throws -> (directory: String, port: String) {
            var values: [String: String] = [:]
            for pair in TestDatabase.url.split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { values[parts[0]] = parts[1] }
            }
            return (try #require(values["host"]), try #require(values["port"]))
        }

        @Test func aBadPercentEscapeInAURIPasswordIsNotEchoedByTheError() throws {
            let (directory, port) = try Self.serverAddress()
            let host = directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? directory
            let uri = "postgresql://postgres:T0p%zzSecret@\(host):\(port)/postgres"
            let error = #expect(throws: PostgresError.self) { try PostgresConnection(uri) }
            #expect(error?.kind == .connectionFailed)
            #expect(error?.message.contains("percent") == true, "\(String(describing: error))")
            #expect(error?.message.contains("T0p") == false, "\(String(describing: error))")
            #expect(error?.description.contains("Secret") == false)
        }

        @Test func aURIWithAMistypedSchemeThatTheServerEchoesAsADatabaseNameIsRedacted() throws {
            let (directory, port) = try Self.serverAddress()
            // libpq takes a URI with an unknown scheme for a database name, which the server names in its error.
            let connection =
                "host=\(directory) port=\(port) user=postgres "
                + "dbname='postgresq://someone:Mistyped-S3cret@db.example/app'"
            let error = #expect(throws: PostgresError.self) { try PostgresConnection(connection) }
            #expect(error?.message.contains("does not exist") == true, "\(String(describing: error))")
            #expect(error?.message.contains("Mistyped-S3cret") == false, "\(String(describing: error))")
            #expect(error?.message.contains(ConnectionSecrets.replacement) == true)
        }

        @Test(.enabled(if: FleetFixture.ready, "needs the DurableFleet product"))
        func aProgramGivenAMistypedURINeverPrintsItsPassword() async throws {
            let (directory, port) = try Self.serverAddress()
            let executable = try #require(FleetFixture.executable)
            // The whole string becomes the database name; libpq finds the server through PGHOST and PGPORT.
            let environment = ProcessInfo.processInfo.environment.merging(
                ["PGHOST": directory, "PGPORT": port, "PGUSER": "postgres"], uniquingKeysWith: { $1 })
            let (termination, output) = try await runBlocking { () throws -> (ChildProcess.Termination?, String) in
                let child = try ChildProcess(
                    executable: executable,
                    arguments: ["--database", "postgresq://someone:Child-S3cret@db.example/app", "report", "--json"],
                    environment: environment)
                return (child.waitForExit(timeout: 60), child.output)
            }
            #expect(termination == .exited(1), "\(output)")
            #expect(output.contains("does not exist"), "\(output)")
            #expect(!output.contains("Child-S3cret"), "\(output)")
        }
    }
#endif
