#if Postgres
    import Foundation
    import PKCore

    /// A registered procedure type, with its type erased so that a worker can make and run jobs of any kind.
    struct DurableKind: Sendable {
        let name: String
        /// The kind's ``DurableProcedure/durableTimeout``, clamped to ``acceptedTimeouts``.
        let timeout: Duration
        /// Makes the procedure for a claimed job, its input decoded from the stored JSON.
        let makeRun: @Sendable (DurableJobInfo, String?) throws -> any DurableRun
    }

    /// One job's procedure on a worker, and how to read and commit its outcome.
    protocol DurableRun: Sendable {
        var procedure: Procedure { get }
        /// The output as JSON, or the reason there is none.
        func encodedOutput() -> Result<String, any Error>
        /// The procedure's completion hook, inside the completing transaction.
        func willComplete(_ job: DurableJobInfo, _ connection: PostgresConnection) throws
    }

    /// ``DurableRun`` for one procedure type.
    struct TypedDurableRun<P: DurableProcedure>: DurableRun {
        let typed: P
        var procedure: Procedure { typed }

        func encodedOutput() -> Result<String, any Error> {
            switch typed.output {
            case .pending:
                return .failure(DurableError.unencodableValue(reason: "\(P.kind) finished without an output"))
            case .ready(.failure(let error)):
                return .failure(error)
            case .ready(.success(let value)):
                return Result { try DurableCoding.encode(value) }
            }
        }

        func willComplete(_ job: DurableJobInfo, _ connection: PostgresConnection) throws {
            guard case .ready(.success(let value)) = typed.output else { return }
            try typed.willCompleteDurably(job, output: value, in: connection)
        }

        static func kind() -> DurableKind {
            DurableKind(name: P.kind, timeout: DurableKind.clamped(P.durableTimeout)) { info, json in
                guard let json else { throw DurableError.undecodableInput(kind: P.kind, reason: "no input was stored") }
                let input: P.Input
                do {
                    input = try JSONDecoder().decode(P.Input.self, from: Data(json.utf8))
                } catch {
                    throw DurableError.undecodableInput(kind: P.kind, reason: "\(error)")
                }
                let procedure = P()
                procedure.input = .ready(input)
                procedure.willStartDurably(info)
                return TypedDurableRun(typed: procedure)
            }
        }
    }

    extension DurableKind {
        /// The timeouts a job may have.
        static let acceptedTimeouts: ClosedRange<Duration> = .milliseconds(1) ... .seconds(365 * 86_400)

        /// `timeout` within ``acceptedTimeouts``.
        static func clamped(_ timeout: Duration) -> Duration {
            min(max(timeout, acceptedTimeouts.lowerBound), acceptedTimeouts.upperBound)
        }
    }

    /// JSON in and out of the database.
    enum DurableCoding {
        /// The largest input or output stored, in bytes of JSON: PostgreSQL's `jsonb` takes at most 256 MiB, and a
        /// job's row is read whole by every claim and query.
        static let maximumSize = 64 << 20

        static func encode<T: Encodable>(_ value: T) throws -> String {
            let data: Data
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                data = try encoder.encode(value)
            } catch {
                throw DurableError.unencodableValue(reason: "\(error)")
            }
            guard data.count <= maximumSize else {
                throw DurableError.unencodableValue(
                    reason: "its JSON has \(data.count) bytes, more than the \(maximumSize) a job may store")
            }
            return String(decoding: data, as: UTF8.self)
        }
    }
#endif
