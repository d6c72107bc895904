extension CapabilityProtocol {

    /// Reads the current status without asking anyone: ``getAuthorizationStatus(_:)`` as an `async` call.
    ///
    /// Throws `CancellationError` if the calling Task is cancelled before the capability answers (the answer is
    /// then ignored). It never requests authorization, and it reads the status whether or not the capability is
    /// available.
    public func authorizationStatus() async throws -> Status {
        try await CallbackContinuation.value { completion in getAuthorizationStatus(completion) }
    }

    /// Requests authorization, then reads and returns the status: ``requestAuthorization(withCompletion:)``
    /// followed by ``getAuthorizationStatus(_:)``, as an `async` call.
    ///
    /// An unavailable capability is not asked: this throws `ProcedureKitError.capabilityUnavailable()` with
    /// ``unavailableReason()`` attached. Throws `CancellationError` if the calling Task is cancelled before the
    /// capability answers (the answer is then ignored; a prompt already shown is not withdrawn). The status
    /// returned may still not meet ``requirement``: check it with `meets(requirement:)`.
    @discardableResult
    public func requestAuthorization() async throws -> Status {
        guard isAvailable() else {
            throw ProcedureKitError(context: .capability(.unavailable), error: unavailableReason())
        }
        let _: Bool = try await CallbackContinuation.value { completion in
            requestAuthorization { completion(true) }
        }
        return try await authorizationStatus()
    }
}
