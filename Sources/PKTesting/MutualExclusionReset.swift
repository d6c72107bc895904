import PKCore

/// Process-wide mutual-exclusion state, for test suites.
///
/// The categories of `MutuallyExclusive` conditions are held by one manager for the whole process, so a test that
/// leaves a procedure waiting for (or holding) a category can block a later test. ``reset()`` clears it between
/// tests, as ProcedureKit's test case does in its tear-down.
public enum MutualExclusion {

    /// Forgets every category request and lets every waiting procedure go on.
    ///
    /// Call it only once the procedures of the test that just ended can no longer run (for example after its
    /// queue was cancelled and drained): a procedure still holding a category when it is called keeps running but
    /// no longer excludes anyone. Do not call it while tests running in parallel use mutual exclusion.
    public static func reset() {
        ExclusivityManager.shared.reset()
    }

    /// How many procedures hold or wait for categories now.
    public static var requestCount: Int { ExclusivityManager.shared.requestCount }
}
