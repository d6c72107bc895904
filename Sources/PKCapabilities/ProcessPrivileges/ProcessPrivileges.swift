extension Capability {

    /// The Linux capabilities of the running process (`capabilities(7)`): whether its effective set holds
    /// what the code needs, such as `CAP_NET_BIND_SERVICE` to listen on port 443.
    ///
    /// ```swift
    /// let listen = ListenProcedure(port: 443)
    /// listen.add(condition: AuthorizedFor(Capability.ProcessPrivileges(.netBindService)))
    /// ```
    ///
    /// - Requirement: the ``LinuxCapabilitySet`` needed; the status meets it when the effective set holds all
    ///   of it. `nil` or empty is met by any status that could be read.
    /// - Status: ``Status/known(_:)`` with the sets read from `/proc/self/status` (`CapEff`, and `CapPrm` and
    ///   `CapBnd` when present), or ``Status/unknown(_:)`` when they could not be read or parsed.
    /// - Available when the kernel knows every capability of the requirement (its number is at most
    ///   `/proc/sys/kernel/cap_last_cap`); a requirement naming capabilities it does not know can never be met.
    /// - Requesting authorization changes nothing and completes at once: a process cannot grant itself
    ///   capabilities it is not permitted, and capabilities belong to threads in Linux, so raising even permitted
    ///   ones from a framework thread would give them to one arbitrary thread. ``unauthorizedReason(for:)``
    ///   explains what to do instead (`setcap`, systemd's `AmbientCapabilities=`, `docker --cap-add`).
    ///
    /// Every answer is synchronous, on the calling thread. The ``Source`` is injectable, so tests can check a
    /// privileged and an unprivileged process from fixture text.
    public struct ProcessPrivileges: CapabilityProtocol, CustomStringConvertible {

        /// The capabilities needed.
        public let requirement: LinuxCapabilitySet?

        /// Where the sets are read.
        public let source: Source

        /// Creates the capability for `required`, read from `source` (the running process by default).
        public init(_ required: LinuxCapabilitySet, source: Source = .procfs) {
            requirement = required
            self.source = source
        }

        /// `true` when the kernel's last capability number can be read and covers the requirement.
        public func isAvailable() -> Bool {
            unavailableReason() == nil
        }

        /// Reads and parses the sets, and calls `completion` at once, on the calling thread.
        public func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void) {
            do {
                completion(.known(try currentSets()))
            } catch {
                completion(.unknown(error))
            }
        }

        /// Calls `completion` at once, on the calling thread: nothing can be granted from here (see the type's
        /// documentation).
        public func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
            completion()
        }

        /// ``ProcessPrivilegesError/unknownToKernel(_:lastCapability:)`` or the error reading the kernel's last
        /// capability number; `nil` when available.
        public func unavailableReason() -> (any Error)? {
            do {
                let last = try lastCapabilityNumber()
                let highest = requirement?.highestNumber ?? -1
                guard highest > last else { return nil }
                let unknown = LinuxCapabilitySet(rawValue: (requirement ?? []).rawValue & ~mask(upTo: last))
                return ProcessPrivilegesError.unknownToKernel(unknown, lastCapability: last)
            } catch {
                return error
            }
        }

        /// ``ProcessPrivilegesError/notGranted(missing:permitted:)`` with advice, or the reading error.
        public func unauthorizedReason(for status: Status) -> (any Error)? {
            switch status {
            case .unknown(let error):
                return error
            case .known(let sets):
                let missing = (requirement ?? []).subtracting(sets.effective)
                guard !missing.isEmpty else { return nil }
                return ProcessPrivilegesError.notGranted(missing: missing, permitted: sets.permitted ?? [])
            }
        }

        /// Reads and parses the sets now, synchronously.
        public func currentSets() throws(ProcessPrivilegesError) -> Sets {
            try Self.parse(read(source.processStatus), source: source.name)
        }

        /// `ProcessPrivileges(CAP_…)`.
        public var description: String { "ProcessPrivileges(\(requirement ?? []))" }

        /// Parses the `CapEff` line (required) and the `CapPrm` and `CapBnd` lines (optional) of text in the
        /// format of `/proc/<pid>/status`.
        static func parse(_ text: String, source: String) throws(ProcessPrivilegesError) -> Sets {
            var masks: [String: UInt64] = [:]
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let key = String(line[..<colon])
                guard key == "CapEff" || key == "CapPrm" || key == "CapBnd" else { continue }
                guard masks[key] == nil else { throw .malformed(source: source, reason: "\(key) appears twice") }
                let value = line[line.index(after: colon)...].trimmingWhitespace()
                guard (1...16).contains(value.count), value.allSatisfy(\.isHexDigit),
                    let mask = UInt64(value, radix: 16)
                else {
                    throw .malformed(source: source, reason: "\(key) is not a 64-bit hexadecimal mask")
                }
                masks[key] = mask
            }
            guard let effective = masks["CapEff"] else {
                throw .malformed(source: source, reason: "there is no CapEff line")
            }
            return Sets(
                effective: LinuxCapabilitySet(rawValue: effective),
                permitted: masks["CapPrm"].map(LinuxCapabilitySet.init(rawValue:)),
                bounding: masks["CapBnd"].map(LinuxCapabilitySet.init(rawValue:)))
        }

        private func lastCapabilityNumber() throws(ProcessPrivilegesError) -> Int {
            let text = try read(source.lastCapability).trimmingWhitespace()
            guard let last = Int(text), (0...63).contains(last) else {
                throw .malformed(source: source.name, reason: "the last capability number is not between 0 and 63")
            }
            return last
        }

        private func read(_ reader: @Sendable () throws -> String) throws(ProcessPrivilegesError) -> String {
            do {
                return try reader()
            } catch let error as ProcessPrivilegesError {
                throw error
            } catch {
                throw .unreadable(source: source.name, reason: String(describing: error))
            }
        }

        private func mask(upTo last: Int) -> UInt64 {
            last >= 63 ? .max : (1 << UInt64(last + 1)) - 1
        }
    }
}
