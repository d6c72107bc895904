extension Capability.ProcessPrivileges {

    /// Where the capability reads the process's sets and the kernel's last capability number.
    public struct Source: Sendable, CustomStringConvertible {
        /// A name for errors, such as `"/proc/self/status"`.
        public let name: String
        /// Returns text in the format of `/proc/self/status` (lines such as `CapEff:\t0000000000000400`).
        public let processStatus: @Sendable () throws -> String
        /// Returns text in the format of `/proc/sys/kernel/cap_last_cap` (a number, such as `40`).
        public let lastCapability: @Sendable () throws -> String

        /// Creates a source from two readers. An error they throw is reported as
        /// ``ProcessPrivilegesError/unreadable(source:reason:)`` (a `ProcessPrivilegesError` as it is).
        public init(
            name: String, processStatus: @escaping @Sendable () throws -> String,
            lastCapability: @escaping @Sendable () throws -> String
        ) {
            self.name = name
            self.processStatus = processStatus
            self.lastCapability = lastCapability
        }

        /// The running process: `/proc/self/status` and `/proc/sys/kernel/cap_last_cap`, read at each
        /// question.
        public static var procfs: Source {
            Source(
                name: "/proc/self/status",
                processStatus: { try readProcFile("/proc/self/status") },
                lastCapability: { try readProcFile("/proc/sys/kernel/cap_last_cap") })
        }

        /// Fixed text, for tests: `processStatus` as `/proc/self/status` would hold it, and `lastCapability`
        /// as `/proc/sys/kernel/cap_last_cap` would (40, Linux 5.9 and later, by default).
        public static func fixture(processStatus: String, lastCapability: String = "40") -> Source {
            Source(name: "fixture", processStatus: { processStatus }, lastCapability: { lastCapability })
        }

        /// The name.
        public var description: String { name }

        private static func readProcFile(_ path: String) throws(ProcessPrivilegesError) -> String {
            do {
                return try TextFile.contents(of: path)
            } catch {
                throw .unreadable(source: path, reason: error.reason)
            }
        }
    }
}
