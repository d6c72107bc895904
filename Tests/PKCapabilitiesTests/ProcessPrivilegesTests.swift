import Foundation
import PKCapabilities
import PKTesting
import Testing

/// `Capability.ProcessPrivileges`: the effective capability set, from the real `/proc` and from fixture text
/// for a privileged and an unprivileged process.
struct ProcessPrivilegesTests {

    typealias Privileges = Capability.ProcessPrivileges

    /// `/proc/self/status` of a root process in a container that dropped `CAP_SYS_RESOURCE` (this CI machine).
    static let privileged = """
        Name:\tworker
        Umask:\t0022
        State:\tR (running)
        Uid:\t0\t0\t0\t0
        CapInh:\t0000000000000000
        CapPrm:\t000001fffeffffff
        CapEff:\t000001fffeffffff
        CapBnd:\t000001fffeffffff
        CapAmb:\t0000000000000000
        NoNewPrivs:\t0
        """

    /// An ordinary user's process: nothing permitted or effective.
    static let unprivileged = """
        Name:\tworker
        Uid:\t1000\t1000\t1000\t1000
        CapInh:\t0000000000000000
        CapPrm:\t0000000000000000
        CapEff:\t0000000000000000
        CapBnd:\t000001ffffffffff
        CapAmb:\t0000000000000000
        """

    /// A process allowed `CAP_NET_BIND_SERVICE` that has not raised it.
    static let permittedNotEffective = """
        CapPrm:\t0000000000000400
        CapEff:\t0000000000000000
        """

    @Test func aPrivilegedProcessMeetsAnyRequirementItHolds() async throws {
        let capability = Privileges([.netBindService, .sysAdmin], source: .fixture(processStatus: Self.privileged))
        let status = try await capability.authorizationStatus()
        #expect(status.meets(requirement: capability.requirement))
        guard case .known(let sets) = status else {
            Issue.record("expected known sets, got \(status)")
            return
        }
        #expect(sets.effective.rawValue == 0x1ff_feff_ffff)
        #expect(sets.permitted?.rawValue == 0x1ff_feff_ffff)
        #expect(!sets.effective.contains(.sysResource))
        #expect(capability.isAvailable())
    }

    @Test func aPrivilegedProcessStillLacksWhatItsContainerDropped() {
        let capability = Privileges(.sysResource, source: .fixture(processStatus: Self.privileged))
        let status = Box<Privileges.Status?>(nil)
        capability.getAuthorizationStatus { status.value = $0 }
        #expect(status.value?.meets(requirement: capability.requirement) == false)
    }

    @Test func anUnprivilegedProcessDoesNotMeetTheRequirementAndIsToldHowToGrantIt() throws {
        let capability = Privileges(.netBindService, source: .fixture(processStatus: Self.unprivileged))
        let status = Box<Privileges.Status?>(nil)
        capability.getAuthorizationStatus { status.value = $0 }
        let read = try #require(status.value)
        #expect(!read.meets(requirement: capability.requirement))
        let reason = try #require(capability.unauthorizedReason(for: read) as? ProcessPrivilegesError)
        #expect(reason == .notGranted(missing: .netBindService, permitted: []))
        let text = String(describing: reason)
        #expect(text.contains("CAP_NET_BIND_SERVICE"))
        #expect(text.contains("setcap cap_net_bind_service+ep"))
        #expect(text.contains("AmbientCapabilities=CAP_NET_BIND_SERVICE"))
        #expect(text.contains("--cap-add NET_BIND_SERVICE"))
    }

    @Test func aPermittedButIneffectiveCapabilityIsExplainedAsRaisable() throws {
        let capability = Privileges(.netBindService, source: .fixture(processStatus: Self.permittedNotEffective))
        let reason = try #require(capability.unauthorizedReason(for: .known(try capability.currentSets())))
        #expect(String(describing: reason).contains("permitted but not effective"))
        #expect(!String(describing: reason).contains("setcap"))
    }

    @Test func anEmptyRequirementIsMetByAnyReadableStatus() async throws {
        let capability = Privileges([], source: .fixture(processStatus: Self.unprivileged))
        #expect(try await capability.authorizationStatus().meets(requirement: capability.requirement))
    }

    @Test func requestingChangesNothingAndCompletesAtOnce() async throws {
        let capability = Privileges(.netBindService, source: .fixture(processStatus: Self.unprivileged))
        let completed = Box(false)
        capability.requestAuthorization { completed.value = true }
        #expect(completed.value)
        let status = try await capability.requestAuthorization()
        #expect(!status.meets(requirement: capability.requirement))
    }

    @Test func theRealProcessStatusAgreesWithTheKernel() async throws {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("CapEff:") })
        let mask = try #require(UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16))
        let status = try await Privileges(.netBindService).authorizationStatus()
        #expect(status == .known(try Privileges(.netBindService).currentSets()))
        guard case .known(let sets) = status else {
            Issue.record("the real /proc/self/status could not be read: \(status)")
            return
        }
        #expect(sets.effective.rawValue == mask)
        #expect(Privileges(.netBindService).isAvailable())
    }

    @Test func theRealEffectiveSetDecidesWhetherAGatedProcedureRuns() async throws {
        let holdsIt = try Privileges(.netBindService).currentSets().effective.contains(.netBindService)
        let procedure = TestProcedure()
        procedure.add(condition: AuthorizedFor(Privileges(.netBindService)))
        await run(procedure)
        #expect(procedure.didExecute == holdsIt)
        if !holdsIt { PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized()) }
    }

    @Test(arguments: [
        ("Name:\tworker\nCapPrm:\t0000000000000000\n", "there is no CapEff line"),
        ("CapEff:\tzz00000000000000\n", "CapEff is not a 64-bit hexadecimal mask"),
        ("CapEff:\t00000000000000000400\n", "CapEff is not a 64-bit hexadecimal mask"),
        ("CapEff:\t\n", "CapEff is not a 64-bit hexadecimal mask"),
        ("CapEff:\t0\nCapEff:\t1\n", "CapEff appears twice"),
        ("", "there is no CapEff line"),
        ("\u{0}\u{1}binary", "there is no CapEff line"),
    ])
    func malformedTextIsReportedAsAStatusThatNeverMeets(text: String, reason: String) async throws {
        let capability = Privileges([], source: .fixture(processStatus: text))
        let status = try await capability.authorizationStatus()
        #expect(status == .unknown(.malformed(source: "fixture", reason: reason)))
        #expect(!status.meets(requirement: []))
        #expect(
            capability.unauthorizedReason(for: status) as? ProcessPrivilegesError
                == .malformed(source: "fixture", reason: reason))
    }

    @Test func anUnreadableSourceIsReportedWithItsReason() async throws {
        struct Unmounted: Error, CustomStringConvertible {
            var description: String { "proc is not mounted" }
        }
        let source = Privileges.Source(
            name: "/proc/self/status", processStatus: { throw Unmounted() }, lastCapability: { "40" })
        let status = try await Privileges(.netRaw, source: source).authorizationStatus()
        #expect(status == .unknown(.unreadable(source: "/proc/self/status", reason: "proc is not mounted")))
    }

    @Test func aMissingProcFileIsUnreadableWithTheSystemsMessage() async throws {
        let missing = "/proc/self/no-such-file-\(UUID().uuidString)"
        let source = Privileges.Source(
            name: missing, processStatus: { try String(contentsOfFile: missing, encoding: .utf8) },
            lastCapability: { "40" })
        let status = try await Privileges(.netRaw, source: source).authorizationStatus()
        guard case .unknown(.unreadable(let name, _)) = status else {
            Issue.record("expected unreadable, got \(status)")
            return
        }
        #expect(name == missing)
    }

    @Test func aRequirementTheKernelDoesNotKnowIsUnavailable() async {
        let unknown = LinuxCapabilitySet(number: 45)
        let capability = Privileges([.netRaw, unknown], source: .fixture(processStatus: Self.privileged))
        #expect(!capability.isAvailable())
        #expect(
            capability.unavailableReason() as? ProcessPrivilegesError == .unknownToKernel(unknown, lastCapability: 40))
        let procedure = TestProcedure()
        procedure.add(condition: AuthorizedFor(capability))
        await run(procedure)
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnavailable())
        #expect(
            procedure.kitError?.underlyingError as? ProcessPrivilegesError
                == .unknownToKernel(unknown, lastCapability: 40))
    }

    @Test(arguments: ["", "forty", "64", "-1"])
    func anUnusableLastCapabilityNumberMakesTheCapabilityUnavailable(text: String) {
        let capability = Privileges(.netRaw, source: .fixture(processStatus: Self.privileged, lastCapability: text))
        #expect(!capability.isAvailable())
        #expect(capability.unavailableReason() is ProcessPrivilegesError)
    }

    @Test func theRealKernelKnowsTheCommonCapabilities() {
        #expect(Privileges([.netBindService, .netAdmin, .netRaw, .sysAdmin]).isAvailable())
    }

    @Test func aFixturePrivilegedProcessRunsAGatedProcedureAndAnUnprivilegedOneDoesNot() async {
        let allowed = TestProcedure(name: "allowed")
        allowed.add(
            condition: AuthorizedFor(Privileges(.netBindService, source: .fixture(processStatus: Self.privileged))))
        let refused = TestProcedure(name: "refused")
        refused.add(
            condition: AuthorizedFor(Privileges(.netBindService, source: .fixture(processStatus: Self.unprivileged))))
        await run(allowed, refused)
        PKExpectProcedureFinished(allowed)
        PKExpectProcedureCancelledWithError(refused, ProcedureKitError.capabilityUnauthorized())
        #expect(
            refused.kitError?.underlyingError as? ProcessPrivilegesError
                == .notGranted(missing: .netBindService, permitted: []))
    }

    @Test func capabilitySetsDescribeThemselvesWithKernelNames() {
        #expect(LinuxCapabilitySet([.netBindService, .netRaw]).description == "CAP_NET_BIND_SERVICE, CAP_NET_RAW")
        #expect(LinuxCapabilitySet().description == "none")
        #expect(LinuxCapabilitySet(number: 50).description == "CAP_50")
        #expect(LinuxCapabilitySet(number: 64).isEmpty)
        #expect(LinuxCapabilitySet([.chown, .sysAdmin]).numbers == [0, 21])
        #expect(LinuxCapabilitySet([.chown, .sysAdmin]).highestNumber == 21)
    }
}
