/// The error a ``NetworkProcedure`` gives an attempt that finished without error but with a status code its
/// ``NetworkResilience`` retries: ProcedureKit's `ProcedureKitNetworkResiliencyError`.
public enum ProcedureKitNetworkResiliencyError: Error, Sendable, Equatable {
    /// The attempt received this status code; when attempts run out, it is the procedure's error.
    case receivedErrorStatusCode(HTTPStatusCode)
}
