import Foundation

/// Which procedure each `Pipe` end was handed to, so that an end goes to one procedure only. Guarded by the handles
/// lock (``withHandlesLocked(_:)``).
///
/// As `Foundation.Process` does, a procedure given a `Pipe` end closes this process's copy of it once its child is
/// launched (or when it finishes without launching), so that the reader at the other end sees the end of the file.
/// A second procedure given the same end used to launch or fail depending on whether it copied the end before the
/// first closed it. Now the first procedure to take an end claims it, and any other is refused with
/// ``ProcessProcedure/Error/Code/invalidStandardStream`` before anything is launched, whatever the timing. One
/// procedure may use an end twice (standard output and standard error into one pipe).
struct PipeEndClaims: Sendable {

    /// One claimed end; both references are weak, so that a claim neither keeps the end nor the procedure alive,
    /// and an identifier reused by another object is not mistaken for a claimed one.
    private final class Claim: @unchecked Sendable {
        // @unchecked Sendable: made, read and dropped only under the handles lock (`handlesLock` in Spawner.swift).
        weak var end: FileHandle?
        weak var owner: AnyObject?

        init(end: FileHandle, owner: AnyObject) {
            self.end = end
            self.owner = owner
        }
    }

    private var claims: [ObjectIdentifier: Claim] = [:]
    /// The count at which claims whose end is gone are dropped.
    private var pruneAt = 64

    /// Claims `end` for `owner`; `false` when another owner claimed it first.
    mutating func claim(_ end: FileHandle, for owner: AnyObject) -> Bool {
        let key = ObjectIdentifier(end)
        if let claim = claims[key], claim.end === end {
            return claim.owner === owner
        }
        claims[key] = Claim(end: end, owner: owner)
        if claims.count >= pruneAt {
            claims = claims.filter { $0.value.end != nil }
            pruneAt = max(64, 2 * claims.count)
        }
        return true
    }
}
