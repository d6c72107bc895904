import Foundation
import PKCapabilities
import PKTesting
import Synchronization
import Testing

// The code of the article "Capabilities" (PKCapabilities.docc/Capabilities.md) and of PKCapabilities' root page
// (PKCapabilities.docc/PKCapabilities.md), as written there, so that it compiles and, where it touches nothing
// outside the test, runs: keep them in step (Scripts/docs.sh checks that every example of the catalogue is in a
// test). The names the examples assume (`Database`, `deviceCodeFlow`, `SyncProcedure`, …) are defined first.

private final class SyncProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

private final class ReportProcedure: Procedure, @unchecked Sendable {
    override func execute() { finish() }
}

private func deviceCodeFlow(refreshing current: Capability.Credential.Token?) async throws
    -> Capability.Credential.Token
{
    Capability.Credential.Token("token", scopes: ["repo"])
}

/// A database whose migration lock is free until someone takes it.
private final class Database: Sendable {
    let isConfigured = true
    let clientID: String
    private let lockOwner = Mutex<String?>(nil)

    init(clientID: String) { self.clientID = clientID }

    func readLockOwner(_ completion: @escaping @Sendable (String?) -> Void) {
        completion(lockOwner.withLock { $0 })
    }

    func tryTakeLock(_ completion: @escaping @Sendable (Bool) -> Void) {
        let taken = lockOwner.withLock { owner in
            if owner == nil { owner = clientID }
            return owner == clientID
        }
        completion(taken)
    }
}

private struct MigrationLockBusy: Error {
    let owner: String
}

// "Writing your own capability"

private struct MigrationLock: CapabilityProtocol {
    enum Status: AuthorizationStatus, Hashable {
        case free, heldByUs
        case heldByOther(String)

        // The requirement is Void: there is only one level, holding the lock.
        func meets(requirement: Void?) -> Bool { self == .heldByUs }
    }

    let database: Database  // must be Sendable: capabilities are used from the framework's threads

    var requirement: Void? { () }

    func isAvailable() -> Bool { database.isConfigured }

    func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void) {
        database.readLockOwner { owner in
            completion(owner.map { $0 == database.clientID ? .heldByUs : .heldByOther($0) } ?? .free)
        }
    }

    func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
        database.tryTakeLock { _ in completion() }  // success or not, the status says what happened
    }

    func unauthorizedReason(for status: Status) -> (any Error)? {
        if case .heldByOther(let owner) = status { return MigrationLockBusy(owner: owner) }
        return nil
    }
}

// "Testing code that uses capabilities"

private let queue = ProcedureQueue()

@Test func reportNeedsFullAuthorization() async {
    let capability = TestableCapability(requirement: .maximum, responseAuthorizationStatus: .minimumAuthorized)
    let report = ReportProcedure()
    report.add(condition: AuthorizedFor(capability))
    try? await queue.run(report)
    PKExpectProcedureCancelledWithError(report, ProcedureKitError.capabilityUnauthorized())
}

/// The root page's example. Not run: it would create `/var/cache/app`.
private func theRootPagesExample() {
    let cache = Capability.FileAccess([.read, .write], at: "/var/cache/app", createIfMissing: .directory())
    let api = Capability.Credential(name: "api", store: EnvironmentCredentialStore(variable: "API_TOKEN"))

    let sync = SyncProcedure()
    sync.add(condition: AuthorizedFor(cache))
    sync.add(condition: AuthorizedFor(api))
    queue.add(procedure: sync)
}

@Suite(.timeLimit(.minutes(1)))
struct CapabilitiesGuideTests {

    @Test func readingAStatus() async throws {
        let check = GetAuthorizationStatusProcedure(Capability.ProcessPrivileges(.netBindService))
        let (isAvailable, status) = try await queue.run(check)
        print(isAvailable, status)  // true known(effective 0x000001fffeffffff, …)
        // End of the article's example.
        #expect(isAvailable)
    }

    @Test func requestingAuthorization() async throws {
        let credential = Capability.Credential(
            name: "guide", store: InMemoryCredentialStore(), authorize: deviceCodeFlow(refreshing:))
        let (_, status) = try await queue.run(AuthorizeCapabilityProcedure(credential))
        // End of the article's first line.
        #expect(status.meets(requirement: nil))
    }

    @Test func requestingAuthorizationFromSwiftConcurrency() async throws {
        let credential = Capability.Credential(
            name: "guide", store: InMemoryCredentialStore(), authorize: deviceCodeFlow(refreshing:))
        // The same, from Swift concurrency:
        let status = try await credential.requestAuthorization()
        // End of the article's example.
        #expect(status.meets(requirement: nil))
    }

    @Test func requiringAuthorization() async throws {
        let deploy = ReportProcedure()
        deploy.add(
            condition: AuthorizedFor(
                TestableCapability(serviceAuthorizationStatus: .denied, responseAuthorizationStatus: .denied)))
        do {
            try await queue.run(deploy)
        } catch let error as ProcedureKitError where error.context == .capability(.unauthorized) {
            print("not authorized:", error.underlyingError ?? "no reason given")
        }
        // End of the article's example.
        #expect(deploy.isCancelled)
    }

    @Test func injectedSources() async throws {
        let unprivileged = Capability.ProcessPrivileges(
            .netBindService, source: .fixture(processStatus: "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000"))
        let asService = Capability.FileAccess(
            .read, at: "/etc/app/secrets.json",
            checker: PermissionBitsChecker(userID: 998, groupIDs: [998]))
        // End of the article's examples.
        let (_, privileges) = try await queue.run(GetAuthorizationStatusProcedure(unprivileged))
        #expect(!privileges.meets(requirement: unprivileged.requirement))
        let (_, access) = try await queue.run(GetAuthorizationStatusProcedure(asService))
        #expect(!access.meets(requirement: asService.requirement))
    }

    @Test func aCredentialWithADeviceCodeFlow() {
        let home = FileManager.default.temporaryDirectory.path
        let github = Capability.Credential(
            name: "github", store: FileCredentialStore(path: "\(home)/.config/tool/token.json"),
            requirement: .init(scopes: ["repo"], validFor: .seconds(60)), authorizeTimeout: .seconds(300)
        ) { current in
            try await deviceCodeFlow(refreshing: current)
        }
        // End of the article's example.
        #expect(github.isAvailable())
    }

    @Test func theMigrationLock() async {
        let migrate = ReportProcedure()
        let db = Database(clientID: "us")
        migrate.add(condition: AuthorizedFor(MigrationLock(database: db), timeout: .seconds(10)))
        // End of the article's example.
        try? await queue.run(migrate)
        PKExpectProcedureFinished(migrate)
    }
}
