import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One download of a ``ManagedNetworkSession``: the file PKNetwork writes the body into, and the completion handler.
///
/// Only the session's delegate queue (serial) touches the file; ``ManagedDownloadDelegate``'s lock guards the table
/// the download sits in.
struct ManagedDownload: Sendable {
    /// Where the body goes: `PKNetwork-<UUID>.partial` in the session's temporary directory.
    let file: URL
    let completion: @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    /// Open once the first bytes arrived (or the response came with an empty body).
    var handle: FileHandle?
    /// A failure to write the file, reported instead of the cancellation it led to.
    var writeError: (any Error)?
}
