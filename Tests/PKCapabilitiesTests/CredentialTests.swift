import Foundation
import PKTesting
import Testing

@testable import PKCapabilities

/// `Capability.Credential`: a token from a store, an authorize step, and statuses that tell missing, expired
/// and valid apart.
struct CredentialTests {

    typealias Credential = Capability.Credential
    typealias Token = Capability.Credential.Token

    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))

    private func token(_ value: String = "tok-0001", expiresIn seconds: TimeInterval? = 3_600, scopes: Set<String> = [])
        -> Token
    {
        Token(value, expiresAt: seconds.map { clock.now.addingTimeInterval($0) }, scopes: scopes)
    }

    // MARK: - Status

    @Test func statusTellsMissingExpiredAndValidApart() async throws {
        let store = InMemoryCredentialStore()
        let credential = Credential(name: "api", store: store, clock: clock)
        #expect(try await credential.authorizationStatus() == .missing)
        store.token = token(expiresIn: 3_600, scopes: ["read"])
        #expect(try await credential.authorizationStatus() == .valid(scopes: ["read"], expiresIn: .seconds(3_600)))
        clock.advance(by: .seconds(3_600))
        #expect(try await credential.authorizationStatus() == .expired(at: clock.now))
        store.token = token(expiresIn: nil)
        #expect(try await credential.authorizationStatus() == .valid(scopes: [], expiresIn: nil))
    }

    @Test(arguments: [1e19, 1e300, Double.infinity])
    func aFarExpiryIsReportedAsTheLongestValidityInsteadOfTrapping(expiresIn seconds: Double) async throws {
        // A token file with "expires_at": 1e19 trapped on every status read (issue 22).
        let store = InMemoryCredentialStore()
        store.token = Credential.Token("secret", expiresAt: clock.now.addingTimeInterval(seconds))
        let credential = Credential(name: "api", store: store, clock: clock)
        let status = try await credential.authorizationStatus()
        guard case .valid(_, let expiresIn?) = status else {
            Issue.record("expected a valid status with an expiry, got \(status)")
            return
        }
        #expect(expiresIn >= .seconds(900 * 365 * 86_400))
    }

    @Test(arguments: [
        (
            Credential.Status.valid(scopes: ["read", "write"], expiresIn: .seconds(600)),
            Credential.Requirement(scopes: ["read"]), true
        ),
        (.valid(scopes: ["read"], expiresIn: .seconds(600)), .init(scopes: ["read", "write"]), false),
        (.valid(scopes: [], expiresIn: .seconds(30)), .init(validFor: .seconds(60)), false),
        (.valid(scopes: [], expiresIn: .seconds(60)), .init(validFor: .seconds(60)), true),
        (.valid(scopes: [], expiresIn: nil), .init(validFor: .seconds(86_400)), true),
        (.missing, .init(), false),
        (.expired(at: Date(timeIntervalSince1970: 0)), .init(), false),
        (.unreadable(.unreadable(credential: "api", reason: "x")), .init(), false),
    ])
    func aStatusMeetsARequirementOnlyWithEveryScopeAndEnoughTimeLeft(
        status: Credential.Status, requirement: Credential.Requirement, meets: Bool
    ) {
        #expect(status.meets(requirement: requirement) == meets)
    }

    @Test func theReasonNamesWhatIsWrongWithTheToken() {
        let store = InMemoryCredentialStore(token: token(expiresIn: 30, scopes: ["read"]))
        let scoped = Credential(name: "api", store: store, requirement: .init(scopes: ["read", "admin"]), clock: clock)
        #expect(
            scoped.unauthorizedReason(for: .valid(scopes: ["read"], expiresIn: .seconds(30))) as? CredentialError
                == .insufficientScopes(credential: "api", missing: ["admin"]))
        let timed = Credential(name: "api", store: store, requirement: .init(validFor: .seconds(60)), clock: clock)
        #expect(
            timed.unauthorizedReason(for: .valid(scopes: [], expiresIn: .seconds(30))) as? CredentialError
                == .expiresTooSoon(credential: "api", expiresIn: .seconds(30), needed: .seconds(60)))
        #expect(timed.unauthorizedReason(for: .valid(scopes: [], expiresIn: .seconds(90))) == nil)
    }

    @Test func validTokenReturnsAUsableTokenAndOtherwiseThrowsWhyNot() throws {
        let store = InMemoryCredentialStore(token: token(expiresIn: 10))
        let credential = Credential(name: "api", store: store, clock: clock)
        #expect(try credential.validToken().revealedValue == "tok-0001")
        clock.advance(by: .seconds(10))
        #expect(throws: CredentialError.expired(credential: "api", at: clock.now)) { try credential.validToken() }
    }

    // MARK: - Stores

    @Test func theEnvironmentStoreReadsItsVariableAndKeepsSavedTokensInMemory() async throws {
        let empty = Credential(
            name: "gh", store: EnvironmentCredentialStore(variable: "GH_TOKEN", environment: ["GH_TOKEN": ""]))
        #expect(try await empty.authorizationStatus() == .missing)
        #expect(
            empty.unauthorizedReason(for: .missing) as? CredentialError
                == .noAuthorizeStep(credential: "gh", source: "environment variable GH_TOKEN"))
        let store = EnvironmentCredentialStore(
            variable: "GH_TOKEN", scopes: ["repo"], environment: ["GH_TOKEN": "ghp_abc"])
        let set = Credential(name: "gh", store: store, requirement: .init(scopes: ["repo"]))
        #expect(try await set.authorizationStatus() == .valid(scopes: ["repo"], expiresIn: nil))
        #expect(try set.validToken().revealedValue == "ghp_abc")
        try store.saveToken(Token("ghp_new"))
        #expect(try store.loadToken()?.revealedValue == "ghp_new")
    }

    @Test func theFileStoreReadsAPlainTokenOnItsFirstLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("  plain-token-value \nignored second line\n", to: "token", permissions: 0o600)
        let token = try FileCredentialStore(path: path).loadToken()
        #expect(token == Token("plain-token-value"))
    }

    @Test func theFileStoreReadsTheJSONForm() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let numeric = try directory.write(
            #"{"token": "abc", "expires_at": 1800003600, "scopes": ["repo", "read:org"]}"#, to: "a.json")
        #expect(
            try FileCredentialStore(path: numeric).loadToken()
                == Token("abc", expiresAt: Date(timeIntervalSince1970: 1_800_003_600), scopes: ["repo", "read:org"]))
        let dated = try directory.write(
            #"{"token": "abc", "expires_at": "2027-01-15T08:00:00Z", "scopes": "a b"}"#, to: "b.json")
        let token = try FileCredentialStore(path: dated).loadToken()
        #expect(token?.scopes == ["a", "b"])
        #expect(token?.expiresAt == ISO8601DateFormatter().date(from: "2027-01-15T08:00:00Z"))
    }

    @Test func aMissingOrEmptyTokenFileHoldsNoToken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(try FileCredentialStore(path: directory.file("absent")).loadToken() == nil)
        let empty = try directory.write(" \n", to: "empty")
        #expect(try FileCredentialStore(path: empty).loadToken() == nil)
    }

    @Test(arguments: [
        (#"{"token": "s3cr3t-value""#, "it starts with { but is not valid JSON"),
        (#"{"expires_at": 5}"#, #"there is no non-empty "token" string"#),
        (#"{"token": "s3cr3t-value", "expires_at": "tomorrow"}"#, #""expires_at" is not an ISO 8601 date"#),
        (#"{"token": "s3cr3t-value", "expires_at": true}"#, #""expires_at" is neither a number of seconds nor a date"#),
        (#"{"token": "s3cr3t-value", "scopes": 3}"#, #""scopes" is neither a list nor a string"#),
    ])
    func aMalformedTokenFileIsUnreadableWithoutQuotingIt(content: String, reason: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(content, to: "token.json")
        let credential = Credential(name: "api", store: FileCredentialStore(path: path))
        let status = try await credential.authorizationStatus()
        let expected = CredentialStoreError.malformed(path: path, reason: reason)
        #expect(status == .unreadable(.unreadable(credential: "api", reason: expected.description)))
        #expect(!String(describing: status).contains("s3cr3t"))
        #expect(!status.meets(requirement: nil))
    }

    @Test func anUnreadableTokenFileIsReportedWithTheSystemsMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let credential = Credential(name: "api", store: FileCredentialStore(path: directory.path))  // a directory
        guard case .unreadable(.unreadable(_, let reason)) = try await credential.authorizationStatus() else {
            Issue.record("expected unreadable")
            return
        }
        #expect(reason.contains("Is a directory"))
    }

    @Test func theFileStoreSavesJSONReadableByItsOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(path: directory.file("token.json"))
        let saved = token("tok-saved", expiresIn: 60, scopes: ["a"])
        try store.saveToken(saved)
        #expect(try store.loadToken() == saved)
        let permissions = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["token.json"])
    }

    @Test func aFilePlantedUnderTheOldTemporaryNameNeitherReceivesTheTokenNorLendsItsMode() throws {
        // Saving wrote through a fixed temporary name ("<path>.tmp-<pid>") opened without O_EXCL|O_NOFOLLOW: a
        // symbolic link planted there received the token, and a planted 0644 file became the token file (issue 22).
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("token.json")
        let victim = directory.file("victim")
        try "untouched".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: path + ".tmp-\(getpid())", withDestinationPath: victim)
        let store = FileCredentialStore(path: path)
        try store.saveToken(Token("tok-secret"))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched")
        #expect(try store.loadToken()?.revealedValue == "tok-secret")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
    }

    @Test func concurrentSavesEachLeaveACompleteFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(path: directory.file("token.json"))
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask { try? store.saveToken(Token("tok-\(index)", scopes: ["s\(index)"])) }
            }
        }
        let token = try #require(try store.loadToken())
        #expect(token.revealedValue.hasPrefix("tok-"))
        #expect(token.scopes == ["s" + token.revealedValue.dropFirst(4)])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["token.json"])
    }

    // MARK: - Authorizing

    @Test func anAsyncAuthorizeStepRefreshesAnExpiredTokenAndSavesIt() async throws {
        let store = InMemoryCredentialStore(token: token("old", expiresIn: -1))
        let given = Box<Token?>(nil)
        let credential = Credential(name: "api", store: store, clock: clock) { [clock] current in
            given.value = current
            return Token("new", expiresAt: clock.now.addingTimeInterval(900))
        }
        let status = try await credential.requestAuthorization()
        #expect(status == .valid(scopes: [], expiresIn: .seconds(900)))
        #expect(given.value?.revealedValue == "old")
        #expect(store.token?.revealedValue == "new")
        #expect(credential.lastAuthorizationError == nil)
    }

    @Test func anAuthorizeStepWithACompletionHandlerIsUsedTheSameWay() async throws {
        let store = InMemoryCredentialStore()
        let credential = Credential(
            name: "api", store: store, clock: clock,
            authorizeWithCompletion: { _, done in
                DispatchQueue.global().async { done(.success(Token("device-code-token"))) }
            })
        let procedure = TestProcedure()
        procedure.add(condition: AuthorizedFor(credential))
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(store.token?.revealedValue == "device-code-token")
    }

    @Test func aThrowingStepLeavesTheStoreAloneAndExplainsTheRefusal() async throws {
        struct RefreshRejected: Error, CustomStringConvertible {
            var description: String { "HTTP 401 from the token endpoint" }
        }
        let store = InMemoryCredentialStore(token: token("old", expiresIn: -5))
        let credential = Credential(name: "api", store: store, clock: clock) { _ in throw RefreshRejected() }
        let procedure = TestProcedure()
        procedure.add(condition: AuthorizedFor(credential))
        await run(procedure)
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
        let expected = CredentialError.authorizeFailed(credential: "api", reason: "HTTP 401 from the token endpoint")
        #expect(procedure.kitError?.underlyingError as? CredentialError == expected)
        #expect(credential.lastAuthorizationError == expected)
        #expect(store.token?.revealedValue == "old")
    }

    @Test func anAuthorizeStepThatNeverCallsBackTimesOutOnTheCredentialsClock() async throws {
        let kept = Box<[@Sendable (Result<Token, any Error>) -> Void]>([])
        let credential = Credential(
            name: "api", store: InMemoryCredentialStore(), authorizeTimeout: .seconds(30), clock: clock,
            authorizeWithCompletion: { _, done in kept.update { $0.append(done) } })
        let procedure = AuthorizeCapabilityProcedure(credential)
        defer { procedure.cancel() }
        ProcedureQueue().add(procedure: procedure)
        await advance(clock, by: .seconds(30), until: [procedure])
        PKExpectProcedureFinished(procedure)
        PKExpectGetAuthorizationStatus(procedure.output.success, expected: (true, .missing))
        #expect(credential.lastAuthorizationError == .authorizeTimedOut(credential: "api", after: .seconds(30)))
        // The answer that finally comes is ignored: the request was settled.
        for done in kept.value { done(.success(Token("too-late"))) }
        #expect(try await credential.authorizationStatus() == .missing)
    }

    @Test func anAsyncStepThatTimesOutIsCancelled() async throws {
        let sawCancellation = Box(false)
        let credential = Credential(
            name: "api", store: InMemoryCredentialStore(), authorizeTimeout: .seconds(5), clock: clock
        ) { _ in
            do {
                try await Task.sleep(for: .seconds(3_600))
            } catch {
                sawCancellation.value = true
                throw error
            }
            return Token("never")
        }
        let request = Task { try await credential.requestAuthorization() }
        #expect(await clock.waitForScheduledActions(count: 1))
        clock.advance(by: .seconds(5))
        #expect(try await request.value == .missing)
        await eventually("the step's Task to see its cancellation") { sawCancellation.value }
        #expect(credential.lastAuthorizationError == .authorizeTimedOut(credential: "api", after: .seconds(5)))
    }

    @Test func aProcedureTimeoutFinishesTheProcedureWhileTheStepIsStillInFlight() async throws {
        let credential = Credential(
            name: "api", store: InMemoryCredentialStore(), authorizeTimeout: nil, clock: clock,
            authorizeWithCompletion: { _, _ in })
        let procedure = AuthorizeCapabilityProcedure(credential, timeout: .seconds(20), clock: clock)
        defer { procedure.cancel() }
        ProcedureQueue().add(procedure: procedure)
        await advance(clock, by: .seconds(20), until: [procedure])
        PKExpectProcedureFinishedWithError(procedure, ProcedureKitError.timedOut(with: .by(20)))
        // The step is still in flight; abandoning it settles the credential.
        credential.cancelAuthorization()
        #expect(credential.lastAuthorizationError == .authorizeCancelled(credential: "api"))
    }

    @Test func cancellingTheProcedureDoesNotAbandonTheSharedStep() async throws {
        let kept = Box<(@Sendable (Result<Token, any Error>) -> Void)?>(nil)
        let store = InMemoryCredentialStore()
        let credential = Credential(
            name: "api", store: store, clock: clock, authorizeWithCompletion: { _, done in kept.value = done })
        let procedure = AuthorizeCapabilityProcedure(credential)
        ProcedureQueue().add(procedure: procedure)
        await eventually("the step to start") { kept.value != nil }
        procedure.cancel()
        await finished([procedure])
        PKExpectProcedureCancelled(procedure)
        kept.value?(.success(Token("arrived")))
        #expect(store.token?.revealedValue == "arrived")
    }

    @Test func authorizationsRacingFromSeveralThreadsShareOneStep() async throws {
        let runs = Box(0)
        let kept = Box<[@Sendable (Result<Token, any Error>) -> Void]>([])
        let store = InMemoryCredentialStore()
        let credential = Credential(
            name: "api", store: store, clock: clock,
            authorizeWithCompletion: { _, done in
                runs.update { $0 += 1 }
                kept.update { $0.append(done) }
            })
        let (asked, completed) = (Box(0), Box(0))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            credential.requestAuthorization { completed.update { $0 += 1 } }
            asked.update { $0 += 1 }
        }
        #expect(asked.value == 8)
        #expect(runs.value == 1)
        #expect(completed.value == 0)
        for done in kept.value { done(.success(Token("shared"))) }
        #expect(completed.value == 8)
        #expect(store.token?.revealedValue == "shared")
    }

    @Test func twoRequestsMadeWhileTheStepIsHeldRunItOnce() {
        let runs = Box(0)
        let kept = Box<[@Sendable (Result<Token, any Error>) -> Void]>([])
        let credential = Credential(
            name: "api", store: InMemoryCredentialStore(), clock: clock,
            authorizeWithCompletion: { _, done in
                runs.update { $0 += 1 }
                kept.update { $0.append(done) }
            })
        let completions = Box(0)
        credential.requestAuthorization { completions.update { $0 += 1 } }
        credential.requestAuthorization { completions.update { $0 += 1 } }
        #expect(runs.value == 1)
        #expect(completions.value == 0)
        for done in kept.value { done(.success(Token("shared"))) }
        #expect(completions.value == 2)
        credential.requestAuthorization { completions.update { $0 += 1 } }
        #expect(runs.value == 2)
    }

    @Test func withoutAnAuthorizeStepRequestingChangesNothingAndSaysWhereTheTokenGoes() async throws {
        let credential = Credential(
            name: "deploy", store: EnvironmentCredentialStore(variable: "DEPLOY_TOKEN", environment: [:]))
        let status = try await credential.requestAuthorization()
        #expect(status == .missing)
        let reason = credential.unauthorizedReason(for: status) as? CredentialError
        #expect(reason == .noAuthorizeStep(credential: "deploy", source: "environment variable DEPLOY_TOKEN"))
    }

    @Test func aTokenThatCannotBeSavedIsReported() async throws {
        struct ReadOnlyStore: CredentialStore {
            struct Refused: Error, CustomStringConvertible {
                let token: Capability.Credential.Token
                var description: String { "read-only store refused \(token.revealedValue)" }
            }
            func loadToken() throws -> Capability.Credential.Token? { nil }
            func saveToken(_ token: Capability.Credential.Token) throws { throw Refused(token: token) }
            var description: String { "read-only" }
        }
        let credential = Credential(name: "api", store: ReadOnlyStore()) { _ in Token("fresh-secret") }
        #expect(try await credential.requestAuthorization() == .missing)
        #expect(
            credential.lastAuthorizationError
                == .saveFailed(credential: "api", reason: "read-only store refused <redacted>"))
    }

    // MARK: - The secret stays secret

    @Test func aCredentialErrorFromTheAuthorizeStepIsRedactedToo() async throws {
        // The step's own CredentialError was stored as it was, token and all (issue 22).
        let store = InMemoryCredentialStore(token: token("tok-leaky", expiresIn: -1))
        let credential = Credential(name: "api", store: store, clock: clock) { current in
            throw CredentialError.authorizeFailed(
                credential: "api", reason: "the endpoint refused \(current?.revealedValue ?? "")")
        }
        _ = try await credential.requestAuthorization()
        let error = try #require(credential.lastAuthorizationError)
        #expect(error == .authorizeFailed(credential: "api", reason: "the endpoint refused <redacted>"))
        #expect(!"\(error)".contains("tok-leaky"))
    }

    @Test func aStoreErrorQuotingTheLastTokenIsRedactedInTheStatus() async throws {
        // A store that cannot be read any more, whose error quotes the token it last held: the unreadable status
        // carried the error's description as it was (issue 22).
        final class FlakyStore: CredentialStore, @unchecked Sendable {
            // @unchecked Sendable: `broken` is behind its PKMutex.
            struct Broken: Error, CustomStringConvertible {
                var description: String { "cannot re-read tok-last-seen" }
            }
            let broken = PKMutex(false)
            func loadToken() throws -> Capability.Credential.Token? {
                if broken.withLock({ $0 }) { throw Broken() }
                return Capability.Credential.Token("tok-last-seen")
            }
            func saveToken(_ token: Capability.Credential.Token) throws {}
            var description: String { "flaky" }
        }
        let store = FlakyStore()
        let credential = Credential(name: "api", store: store, clock: clock)
        #expect(try await credential.authorizationStatus() == .valid(scopes: [], expiresIn: nil))
        store.broken.withLock { $0 = true }
        let status = try await credential.authorizationStatus()
        #expect(status == .unreadable(.unreadable(credential: "api", reason: "cannot re-read <redacted>")))
        #expect(!"\(status)".contains("tok-last-seen"))
    }

    @Test func theTokenNeverAppearsInDescriptionsErrorsOrLogMessages() async throws {
        let secret = "tok-SECRET-9f8e7d"
        let store = InMemoryCredentialStore(
            token: Token(secret, expiresAt: clock.now.addingTimeInterval(-1), scopes: ["read"]))
        let credential = Credential(name: "api", store: store, requirement: .init(scopes: ["read"]), clock: clock) {
            current in
            throw EchoingError(echoed: current?.revealedValue ?? "")
        }
        let writer = TestableLogWriter()
        let getter = GetAuthorizationStatusProcedure(credential)
        let authorize = AuthorizeCapabilityProcedure(credential)
        let gated = TestProcedure(name: "gated")
        gated.add(condition: AuthorizedFor(credential))
        for procedure in [getter, authorize, gated] as [Procedure] { procedure.log.writer = writer }
        await run(getter, authorize, gated)
        PKExpectProcedureCancelledWithError(gated, ProcedureKitError.capabilityUnauthorized())

        let token = try #require(store.token)
        var dumped = ""
        dump(token, to: &dumped)
        let status = try await credential.authorizationStatus()
        let response = try #require(authorize.output.success)
        // What the framework logs is built from these: the status, the reasons and the errors. The lines the
        // writer caught are checked too (how many depends on the global log settings other tests may change).
        let texts: [String] =
            writer.lines + authorize.responseLogMessages(response).map(\.1) + [
                token.description, token.debugDescription, "\(token)", String(reflecting: token), dumped,
                String(describing: Mirror(reflecting: token).children.map(\.value)),
                credential.description, String(describing: status), String(describing: response),
                String(describing: credential.lastAuthorizationError), String(describing: gated.errors),
                String(describing: credential.unauthorizedReason(for: status)), String(describing: getter.output),
            ]
        for text in texts { #expect(!text.contains(secret), "the token leaked into: \(text)") }
        #expect(authorize.responseLogMessages(response).last?.1.contains("server rejected <redacted>") == true)
        #expect(
            credential.lastAuthorizationError
                == .authorizeFailed(credential: "api", reason: "server rejected <redacted>"))
        #expect(token.revealedValue == secret)
    }
}

/// An error whose description repeats what it was given: a careless token endpoint client.
private struct EchoingError: Error, CustomStringConvertible {
    let echoed: String
    var description: String { "server rejected \(echoed)" }
}
