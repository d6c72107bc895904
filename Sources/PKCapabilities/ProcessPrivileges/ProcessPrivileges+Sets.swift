extension Capability.ProcessPrivileges {

    /// The capability sets of a process.
    public struct Sets: Hashable, Sendable, CustomStringConvertible {
        /// `CapEff`: what the process may do now.
        public var effective: LinuxCapabilitySet
        /// `CapPrm`: what it may make effective; `nil` when the source did not say.
        public var permitted: LinuxCapabilitySet?
        /// `CapBnd`: the most it could gain at `execve`; `nil` when the source did not say.
        public var bounding: LinuxCapabilitySet?

        /// Creates the sets.
        public init(
            effective: LinuxCapabilitySet, permitted: LinuxCapabilitySet? = nil,
            bounding: LinuxCapabilitySet? = nil
        ) {
            self.effective = effective
            self.permitted = permitted
            self.bounding = bounding
        }

        /// The effective set as the kernel writes it, such as `effective 0x0000000000000400`.
        public var description: String {
            "effective " + hex(effective) + (permitted.map { ", permitted " + hex($0) } ?? "")
                + (bounding.map { ", bounding " + hex($0) } ?? "")
        }

        private func hex(_ set: LinuxCapabilitySet) -> String {
            let digits = String(set.rawValue, radix: 16)
            return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
        }
    }
}
