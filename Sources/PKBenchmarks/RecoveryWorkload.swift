// W18: a killed worker process's jobs running again on another (DurableFleet processes).
import Foundation

#if Postgres
    import Dispatch
    import PKPostgres
    /// W18: how long after a worker holding jobs is killed with SIGKILL another worker runs them again. Both are
    /// DurableFleet processes (built beside the benchmark by Scripts/bench.sh) with 2 s leases; the time runs from
    /// the kill to the moment every job the victim held is running on the rescuer or done.
    struct RecoveryBench {
        let url: String
        let fleet: String
        let lease = 2.0

        /// Seconds from the kill to recovery, or `nil` when a step failed (with a message on standard error).
        func measure() -> Double? {
            let schema = "bench_recovery_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            defer {
                if let connection = try? PostgresConnection(url) {
                    _ = try? connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
                    _ = try? connection.execute("DROP SCHEMA IF EXISTS \(schema)_demo CASCADE")
                }
            }
            let base = ["--database", url, "--schema", schema]
            let leaseArguments = ["--concurrency", "4", "--lease-ms", String(Int(lease * 1_000))]
            guard let enqueue = spawn(base + ["enqueue", "--jobs", "4", "--work-ms", "4000"]) else { return nil }
            enqueue.waitUntilExit()
            guard let victim = spawn(base + ["work", "--worker", "victim"] + leaseArguments) else { return nil }
            guard let connection = try? PostgresConnection(url),
                wait(timeout: 30, { count(connection, schema, "state = 'running' AND lease_owner = 'victim'") == 4 })
            else {
                victim.terminate()
                return nil
            }
            kill(victim.processIdentifier, SIGKILL)
            let killed = DispatchTime.now().uptimeNanoseconds
            victim.waitUntilExit()
            guard let rescuer = spawn(base + ["work", "--worker", "rescuer"] + leaseArguments) else { return nil }
            defer {
                rescuer.terminate()
                rescuer.waitUntilExit()
            }
            let recovered = wait(timeout: 30) {
                count(connection, schema, "(state = 'running' AND lease_owner = 'rescuer') OR state = 'completed'") == 4
            }
            guard recovered else { return nil }
            return Double(DispatchTime.now().uptimeNanoseconds - killed) / 1e9
        }

        private func spawn(_ arguments: [String]) -> Process? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: fleet)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                FileHandle.standardError.write(Data("W18: could not start DurableFleet: \(error)\n".utf8))
                return nil
            }
            return process
        }

        private func count(_ connection: PostgresConnection, _ schema: String, _ condition: String) -> Int {
            let row = try? connection.execute("SELECT count(*) AS n FROM \(schema).jobs WHERE \(condition)").rows.first
            return Int((try? row?.int64("n")) ?? 0)
        }

        private func wait(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if condition() { return true }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return false
        }
    }

    /// W18: a killed worker process's jobs running again on another.
    @MainActor func measureRecovery(url: String) {
        let fleet = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("DurableFleet").path
        guard FileManager.default.isExecutableFile(atPath: fleet) else {
            FileHandle.standardError.write(Data("W18 skipped: DurableFleet is not beside the benchmark\n".utf8))
            return
        }
        let bench = RecoveryBench(url: url, fleet: fleet)
        var measurement = Measurement(contender: "kill -9, then a DurableWorker process, 2 s lease")
        for _ in 0..<(quick ? 1 : 3) {
            if let seconds = bench.measure() { measurement.seconds.append(seconds) }
        }
        let worst = measurement.seconds.max() ?? .nan
        rows.append(
            Row(
                workload: "W18 recovery of a killed worker's jobs (PostgreSQL)", contender: measurement.contender,
                operations: 1, medianSeconds: measurement.median, microsecondsPerOperation: measurement.median * 1e6,
                target: String(
                    format: "≤ lease + 1 s = %.1f s (worst %.2f s of %d)", bench.lease + 1, worst,
                    measurement.seconds.count),
                met: worst <= bench.lease + 1))
    }

#endif
