// pk-jobs: the admin tool for PKPostgres's durable jobs. `pk-jobs --help` prints the commands; see
// JobsCommandLine.usage. JSON on standard output; exit status 0 on success, 1 on failure (the reason on standard
// error), 2 on bad usage. A message never repeats the connection string (PKPostgres redacts passwords from the
// server's and libpq's messages).
import Foundation

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("pk-jobs: \(message)\n".utf8))
    exit(status)
}

let commandLine: JobsCommandLine
do {
    commandLine = try JobsCommandLine.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if error.description.isEmpty {
        print(JobsCommandLine.usage)
        exit(0)
    }
    fail("\(error.description)\n\n\(JobsCommandLine.usage)", status: 2)
}

#if Postgres
    import PKJobsDashboard
    import PKPostgres

    if case .serve(let bind, let port, let readOnly) = commandLine.command {
        await Serve.run(commandLine, bind: bind, port: port, readOnly: readOnly)
    }
    do {
        let outcome = try await JobsTool(commandLine).run()
        print(try JobsJSON.text(outcome.json))
        for problem in outcome.problems { FileHandle.standardError.write(Data("pk-jobs: \(problem)\n".utf8)) }
        exit(outcome.problems.isEmpty ? 0 : 1)
    } catch let error as DurableError {
        fail(error.description, status: error.isUsageError ? 2 : 1)
    } catch {
        fail("\(error)", status: 1)
    }
#else
    fail("built without the Postgres trait; build with `swift build --traits Postgres`", status: 1)
#endif
