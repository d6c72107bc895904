import Foundation

/// The download files sessions leave in a directory (the process's temporary directory by default): those
/// FoundationNetworking's download tasks create (`<UUID>.tmp`, never deleted when a transfer fails) and those a
/// `ManagedNetworkSession` writes (`PKNetwork-<UUID>.partial`, deleted on every outcome).
///
/// Other suites of the test process run at the same time and may have downloads in flight, whose files come and go:
/// ``leftSince(_:)`` therefore waits for new files to go before it calls them left behind. A file that stays is a
/// leak, whichever suite made it: no suite may download with a plain `URLSession` a transfer that fails or is
/// cancelled (FoundationNetworking would leave its file; use a `ManagedNetworkSession`), so that the check stays
/// exact. (The first run of the check caught CancelRaceTests doing just that.)
struct TemporaryDownloadFiles {
    let directory: URL
    let names: Set<String>

    /// The download files in `directory` now.
    static func snapshot(in directory: URL = URL(fileURLWithPath: NSTemporaryDirectory())) -> TemporaryDownloadFiles {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return TemporaryDownloadFiles(directory: directory, names: Set(all.filter(isDownloadFile)))
    }

    /// Whether `name` is a session's download file.
    static func isDownloadFile(_ name: String) -> Bool {
        func isUUID(_ text: Substring) -> Bool { UUID(uuidString: String(text)) != nil }
        if name.hasSuffix(".tmp") { return isUUID(name.dropLast(4)) }
        if name.hasPrefix("PKNetwork-"), name.hasSuffix(".partial") { return isUUID(name.dropFirst(10).dropLast(8)) }
        return false
    }

    /// The download files that appeared since `before` and are still there after other suites' transfers in flight
    /// have had `patience` seconds to end.
    static func leftSince(_ before: TemporaryDownloadFiles, patience: TimeInterval = 5) async -> [String] {
        let deadline = Date().addingTimeInterval(patience)
        var new = snapshot(in: before.directory).names.subtracting(before.names)
        while !new.isEmpty, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            new = new.intersection(snapshot(in: before.directory).names)
        }
        return new.sorted()
    }
}
