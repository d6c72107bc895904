// Gating work on capabilities that are real on a Linux server: a job that writes a report needs a directory it
// may write in and a valid API token; a second job needs a service that is down. Run it with
// `swift run CapabilityGate`.
//
//   1. Read each capability's status without asking for anything (GetAuthorizationStatusProcedure).
//   2. Run the report job behind AuthorizedFor conditions: the framework first runs each capability's authorize
//      step (it creates the missing directory and refreshes the expired token), then the job.
//   3. Run the upload job behind AuthorizedFor(HostReachability) on a port nothing listens on: it is cancelled
//      with an error that says why, and never runs.
//
// Everything lives in a temporary directory that is removed at the end. The token is printed only redacted.
import Foundation
import PKCapabilities
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The report job: writes a file into the directory, with the token's expiry as proof it had one.
final class WriteReport: Procedure, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable and Sendable.
    let directory: Capability.FileAccess
    let credential: Capability.Credential

    init(directory: Capability.FileAccess, credential: Capability.Credential) {
        self.directory = directory
        self.credential = credential
        super.init()
        name = "WriteReport"
        add(condition: AuthorizedFor(directory))
        add(condition: AuthorizedFor(credential))
    }

    override func execute() {
        do {
            let token = try credential.validToken()  // the real value is token.revealedValue; never print it
            let report = (directory.path as NSString).appendingPathComponent("report.txt")
            try "report written with \(token)\n".write(toFile: report, atomically: true, encoding: .utf8)
            print("  WriteReport ran: wrote \(report) using \(token)")
            finish()
        } catch {
            finish(with: error)
        }
    }
}

/// The upload job: never runs here, because its service is unreachable.
final class UploadReport: Procedure, @unchecked Sendable {
    // @unchecked Sendable: no stored state of its own; Procedure documents its locking.
    init(service: Capability.HostReachability) {
        super.init()
        name = "UploadReport"
        add(condition: AuthorizedFor(service))
    }

    override func execute() {
        print("  UploadReport ran (unexpected)")
        finish()
    }
}

/// A port on 127.0.0.1 that nothing listens on: bound by the kernel's choice, then closed.
func closedLocalPort() -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            _ = bind(descriptor, $0, length)
            _ = getsockname(descriptor, $0, &length)
        }
    }
    return UInt16(bigEndian: address.sin_port)
}

let workspace = (NSTemporaryDirectory() as NSString).appendingPathComponent("CapabilityGate-\(getpid())")
try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)

// Capability 1: write access to a directory that does not exist yet; authorizing may create it.
let reports = Capability.FileAccess(
    [.read, .write, .execute], at: (workspace as NSString).appendingPathComponent("reports/2026"),
    createIfMissing: .directory(permissions: 0o750))

// Capability 2: an API token kept in a file, expired an hour ago; authorizing runs a refresh step (here a stand-in
// for a call to a token endpoint) and saves the new token in the file.
let tokenFile = FileCredentialStore(path: (workspace as NSString).appendingPathComponent("token.json"))
try tokenFile.saveToken(.init("expired-secret", expiresAt: Date().addingTimeInterval(-3_600), scopes: ["reports"]))
let refreshes = ManagedCounter()
let api = Capability.Credential(
    name: "reports-api", store: tokenFile, requirement: .init(scopes: ["reports"], validFor: .seconds(60)),
    authorizeTimeout: .seconds(5)
) { current in
    refreshes.increment()
    try await Task.sleep(for: .milliseconds(50))  // the token endpoint's round trip
    return .init("fresh-secret", expiresAt: Date().addingTimeInterval(3_600), scopes: current?.scopes ?? [])
}

// A service that is down: nothing listens on this port.
let uploads = Capability.HostReachability(host: "127.0.0.1", port: closedLocalPort(), timeout: .seconds(1))

/// Counts the refresh step's runs.
final class ManagedCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

let queue = ProcedureQueue()
let done = DispatchSemaphore(value: 0)
let outcome = Mutex(Int32(0))

Task.detached {
    do {
        print("1. Status, without asking for anything:")
        let (_, directoryStatus) = try await queue.run(GetAuthorizationStatusProcedure(reports))
        print("  \(reports): \(directoryStatus)")
        let (_, tokenStatus) = try await queue.run(GetAuthorizationStatusProcedure(api))
        print("  \(api): \(tokenStatus)")
        let (_, uploadStatus) = try await queue.run(GetAuthorizationStatusProcedure(uploads))
        print("  \(uploads): \(uploadStatus)")
        let privileges = try await Capability.ProcessPrivileges(.netBindService).authorizationStatus()
        print("  may bind ports below 1024: \(privileges.meets(requirement: .netBindService))")

        print("2. The report job, behind AuthorizedFor(directory) and AuthorizedFor(token):")
        try await queue.run(WriteReport(directory: reports, credential: api))
        print("  after authorizing: \(try await reports.authorizationStatus()); \(try await api.authorizationStatus())")
        print("  the refresh step ran \(refreshes.value) time(s)")

        print("3. The upload job, behind AuthorizedFor(service on a closed port):")
        do {
            try await queue.run(UploadReport(service: uploads))
            print("  unexpected: the upload ran")
            outcome.withLock { $0 = 1 }
        } catch let error as ProcedureKitError where error.context == .capability(.unauthorized) {
            print("  UploadReport was cancelled without running: \(error)")
        }
    } catch {
        print("unexpected failure: \(error)")
        outcome.withLock { $0 = 1 }
    }
    done.signal()
}
done.wait()
try? FileManager.default.removeItem(atPath: workspace)
exit(outcome.withLock { $0 })
