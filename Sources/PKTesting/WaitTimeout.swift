import Foundation

/// A wait's timeout as every PKTesting wait reads it: NaN counts as zero (the wait checks once and gives up), so a
/// timeout computed wrongly fails the test instead of hanging it; zero or less checks once; infinity waits for
/// ever. Before, a NaN timeout hung some waits (a deadline of NaN is never reached) and ended others at once.
package func waitableSeconds(_ timeout: TimeInterval) -> TimeInterval {
    timeout.isNaN ? 0 : timeout
}
