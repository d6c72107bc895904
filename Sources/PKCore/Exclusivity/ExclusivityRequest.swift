/// A request a procedure makes of the ``ExclusivityManager`` as it starts, prepared under its lock.
struct ExclusivityRequest {
    let ticket: UInt64
    let categories: Set<String>
    /// The procedures it was produced by, directly or through others.
    let ancestors: Set<ObjectIdentifier>
}
