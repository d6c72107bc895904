/// Why ``Capability/ProcessPrivileges`` could not read the process's capabilities, or why they are not enough.
public enum ProcessPrivilegesError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The source could not be read (for example `/proc` is not mounted); `reason` says how it failed.
    case unreadable(source: String, reason: String)
    /// The source was read but does not hold what the kernel writes there; `reason` says what is wrong.
    case malformed(source: String, reason: String)
    /// The requirement names capabilities this kernel does not know (numbers above `lastCapability`), so no
    /// process on this system can ever hold them.
    case unknownToKernel(LinuxCapabilitySet, lastCapability: Int)
    /// The effective set lacks `missing`. Those also in `permitted` could be raised by the process itself; the
    /// others must be given to it before it starts.
    case notGranted(missing: LinuxCapabilitySet, permitted: LinuxCapabilitySet)

    /// A readable description with advice on how to grant what is missing.
    public var description: String {
        switch self {
        case .unreadable(let source, let reason):
            return "The process's capabilities could not be read from \(source): \(reason)"
        case .malformed(let source, let reason):
            return "The process's capabilities could not be parsed from \(source): \(reason)"
        case .unknownToKernel(let set, let last):
            return "This kernel knows capabilities 0 to \(last) only, so \(set) can never be granted"
        case .notGranted(let missing, let permitted):
            var text = "The process lacks \(missing) in its effective capability set."
            let raisable = missing.intersection(permitted)
            let absent = missing.subtracting(permitted)
            if !raisable.isEmpty {
                text += " \(raisable) is permitted but not effective: the process can raise it itself with capset(2)."
            }
            if !absent.isEmpty {
                let names = absent.numbers.map { (LinuxCapabilitySet.names[$0] ?? "CAP_\($0)") }
                let setcap = names.map { $0.lowercased() }.joined(separator: ",")
                let docker = names.map { $0.replacingPrefix("CAP_") }.joined(separator: " --cap-add ")
                text +=
                    " A running process cannot grant itself \(absent): start it with"
                    + " `setcap \(setcap)+ep <executable>`, systemd's AmbientCapabilities=\(names.joined(separator: " ")),"
                    + " or `docker run --cap-add \(docker)`."
            }
            return text
        }
    }
}

extension String {
    /// The string without `prefix` at its start, if it has it.
    fileprivate func replacingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
