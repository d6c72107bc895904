import Foundation
import PKCapabilities
import PKTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Capability.FileAccess` on real files in a temporary directory, seen by the kernel for this process (root on
/// CI) and by `PermissionBitsChecker` for an unprivileged user.
struct FileAccessTests {

    typealias FileAccess = Capability.FileAccess

    private let isRoot = geteuid() == 0
    private let nobody = PermissionBitsChecker()

    private func status(_ checker: any FileAccessChecker, _ path: String) -> FileAccess.Status {
        checker.status(ofItemAt: path)
    }

    // MARK: - The kernel's view, for this process

    @Test func aDirectoryThisProcessCreatedGrantsEverything() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(
            status(EffectiveAccessChecker(), directory.path)
                == .accessible(.directory, granted: [.read, .write, .execute]))
    }

    @Test func aMissingPathIsMissing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(status(EffectiveAccessChecker(), directory.file("absent")) == .missing)
        #expect(status(EffectiveAccessChecker(), directory.file("absent/deeper")) == .missing)
    }

    @Test func aFileWithModeZeroIsReadableOnlyWithPrivileges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("secret", to: "locked", permissions: 0o000)
        // Root (this CI machine) has CAP_DAC_OVERRIDE: access(2) says yes to read and write, but never to execute
        // a file with no execute bit. An ordinary user is granted nothing.
        let expected: FileAccess.Mode = isRoot ? [.read, .write] : []
        #expect(status(EffectiveAccessChecker(), file) == .accessible(.file, granted: expected))
    }

    @Test func aPathThroughARegularFileCannotBeExamined() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("x", to: "plain")
        guard case .inaccessible(.cannotExamine(_, let code, _)) = status(EffectiveAccessChecker(), file + "/child")
        else {
            Issue.record("expected cannotExamine")
            return
        }
        #expect(code == ENOTDIR)
    }

    // MARK: - An unprivileged user's view

    @Test func theUnprivilegedViewGrantsNothingOnAFileWithModeZero() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("secret", to: "locked", permissions: 0o000)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        #expect(status(nobody, file) == .accessible(.file, granted: []))
    }

    @Test func theUnprivilegedViewUsesTheOthersBitsOfSomeoneElsesFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let file = try directory.write("text", to: "shared", permissions: 0o644)
        #expect(status(nobody, file) == .accessible(.file, granted: [.read]))
        let capability = FileAccess([.read, .write], at: file, checker: nobody)
        let reason = capability.unauthorizedReason(for: status(nobody, file)) as? FileAccessError
        #expect(reason == .denied(path: file, missing: .write, granted: .read))
    }

    @Test func theUnprivilegedViewUsesTheOwnersBitsForTheOwner() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("mine", to: "private", permissions: 0o600)
        let owner = PermissionBitsChecker(userID: geteuid(), groupIDs: [])
        #expect(status(owner, file) == .accessible(.file, granted: [.read, .write]))
    }

    @Test func theUnprivilegedViewUsesTheGroupsBitsForAMember() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let file = try directory.write("team", to: "team", permissions: 0o640)
        let member = PermissionBitsChecker(userID: 65_000, groupIDs: [getegid()])
        #expect(status(member, file) == .accessible(.file, granted: [.read]))
    }

    @Test func aDirectoryWithoutSearchPermissionHidesWhatIsInsideFromTheUnprivilegedView() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inner = directory.file("closed")
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: false)
        let file = try directory.write("x", to: "closed/file", permissions: 0o644)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: inner)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        guard case .inaccessible(.cannotExamine(let path, let code, let reason)) = status(nobody, file) else {
            Issue.record("expected the path to be inaccessible, got \(status(nobody, file))")
            return
        }
        #expect(path == file)
        #expect(code == EACCES)
        #expect(reason.contains(inner))
        // The kernel's view for root still sees it.
        if isRoot { #expect(status(EffectiveAccessChecker(), file) == .accessible(.file, granted: [.read, .write])) }
    }

    // MARK: - Requesting: creating a missing directory

    @Test func requestingCreatesAMissingDirectoryWithItsParentsWhenOptedIn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("a/b/c")
        let capability = FileAccess([.read, .write], at: target, createIfMissing: .directory(permissions: 0o750))
        #expect(try await capability.authorizationStatus() == .missing)
        let status = try await capability.requestAuthorization()
        #expect(status.meets(requirement: capability.requirement))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) && isDirectory.boolValue)
        let permissions = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
        #expect(permissions.map { $0 & 0o700 } == 0o700)
        #expect(capability.lastCreationFailure == nil)
    }

    @Test func requestingWithoutOptingInCreatesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("absent")
        let capability = FileAccess(.write, at: target)
        let status = try await capability.requestAuthorization()
        #expect(status == .missing)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(capability.unauthorizedReason(for: status) as? FileAccessError == .missing(path: target))
    }

    @Test func aCreationThatFailsIsRememberedAndReported() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("x", to: "plain")
        let target = file + "/sub"
        let capability = FileAccess(.write, at: target, createIfMissing: .directory())
        // The kernel reports ENOTDIR for a path through a file: the status is inaccessible, and nothing is tried.
        #expect(
            try await capability.requestAuthorization()
                == .inaccessible(
                    .cannotExamine(path: target, code: ENOTDIR, reason: "stat: \(String(cString: strerror(ENOTDIR)))")))
        // A directory the unprivileged view may not write in: creation is refused before mkdir is called.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let refused = FileAccess(.write, at: directory.file("new/dir"), createIfMissing: .directory(), checker: nobody)
        let status = try await refused.requestAuthorization()
        #expect(status == .missing)
        guard case .couldNotCreate(_, let code, _) = refused.lastCreationFailure else {
            Issue.record("expected a creation failure, got \(String(describing: refused.lastCreationFailure))")
            return
        }
        #expect(code == EACCES)
        #expect(refused.unauthorizedReason(for: status) as? FileAccessError == refused.lastCreationFailure)
        #expect(!FileManager.default.fileExists(atPath: directory.file("new")))
    }

    @Test func creatingAnExistingDirectoryIsFine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try EffectiveAccessChecker().createDirectory(atPath: directory.path, permissions: 0o755)
        #expect(
            status(EffectiveAccessChecker(), directory.path)
                == .accessible(.directory, granted: [.read, .write, .execute]))
    }

    @Test func creatingWhereAFileStandsFails() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("x", to: "taken")
        #expect(throws: FileAccessError.self) {
            try EffectiveAccessChecker().createDirectory(atPath: file, permissions: 0o755)
        }
    }

    // MARK: - Bad input and the condition

    @Test(arguments: ["", "/tmp/nul\u{0}inside"])
    func anUnusablePathIsUnavailable(path: String) async {
        let capability = FileAccess(.read, at: path)
        #expect(!capability.isAvailable())
        #expect(capability.unavailableReason() as? FileAccessError == .invalidPath(path))
        let procedure = TestProcedure()
        procedure.add(condition: AuthorizedFor(capability))
        await run(procedure)
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnavailable())
    }

    @Test func aRelativePathIsCheckedAgainstTheWorkingDirectory() {
        let cwd = FileManager.default.currentDirectoryPath
        #expect(status(EffectiveAccessChecker(), ".") == status(EffectiveAccessChecker(), cwd))
        #expect(status(nobody, ".") == status(nobody, cwd))
    }

    @Test func aGatedProcedureRunsOnceItsDirectoryIsCreated() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("output")
        let wrote = Box(false)
        let job = BlockProcedure {
            wrote.value = FileManager.default.createFile(
                atPath: (target as NSString).appendingPathComponent("result"), contents: Data())
        }
        job.add(condition: AuthorizedFor(FileAccess([.write, .execute], at: target, createIfMissing: .directory())))
        await run(job)
        PKExpectProcedureFinished(job)
        #expect(wrote.value)
    }

    @Test func theUnprivilegedViewStopsAGatedProcedureThatRootWouldRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("config", to: "config", permissions: 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let asService = TestProcedure(name: "asService")
        asService.add(condition: AuthorizedFor(FileAccess(.read, at: file, checker: nobody)))
        let asThisProcess = TestProcedure(name: "asThisProcess")
        asThisProcess.add(condition: AuthorizedFor(FileAccess(.read, at: file)))
        await run(asService, asThisProcess)
        PKExpectProcedureCancelledWithError(asService, ProcedureKitError.capabilityUnauthorized())
        #expect(
            asService.kitError?.underlyingError as? FileAccessError == .denied(path: file, missing: .read, granted: []))
        PKExpectProcedureFinished(asThisProcess)
    }
}
