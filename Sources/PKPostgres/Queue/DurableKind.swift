#if Postgres
    import Foundation
    import PKCore

    /// A registered procedure type, with its type erased so that a worker can make and run jobs of any kind.
    struct DurableKind: Sendable {
        let name: String
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
            DurableKind(name: P.kind) { info, json in
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

    /// JSON in and out of the database.
    enum DurableCoding {
        static func encode<T: Encodable>(_ value: T) throws -> String {
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return String(decoding: try encoder.encode(value), as: UTF8.self)
            } catch {
                throw DurableError.unencodableValue(reason: "\(error)")
            }
        }
    }
#endif
