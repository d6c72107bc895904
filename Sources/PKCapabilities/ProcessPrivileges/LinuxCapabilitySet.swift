/// A set of Linux capabilities (`capabilities(7)`), such as `CAP_NET_BIND_SERVICE`, as the kernel's 64-bit
/// masks in `/proc/<pid>/status` hold them: capability number *n* is bit *n*.
///
/// ```swift
/// let needed: LinuxCapabilitySet = [.netBindService, .netRaw]
/// needed.description   // "CAP_NET_BIND_SERVICE, CAP_NET_RAW"
/// ```
public struct LinuxCapabilitySet: OptionSet, Hashable, Sendable, CustomStringConvertible {

    /// The mask: bit *n* is capability number *n*.
    public let rawValue: UInt64

    /// Creates a set from a mask.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The set holding capability number `number` alone; empty when `number` is outside 0...63.
    public init(number: Int) {
        rawValue = (0...63).contains(number) ? 1 << UInt64(number) : 0
    }

    /// The capability numbers in the set, ascending.
    public var numbers: [Int] { (0...63).filter { rawValue & (1 << UInt64($0)) != 0 } }

    /// The highest capability number in the set, or `nil` when it is empty.
    public var highestNumber: Int? { rawValue == 0 ? nil : 63 - rawValue.leadingZeroBitCount }

    /// The kernel's names (`CAP_NET_BIND_SERVICE`), or `CAP_<number>` for numbers without a name here, in
    /// ascending order; `"none"` for the empty set.
    public var description: String {
        let names = numbers.map { Self.names[$0] ?? "CAP_\($0)" }
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    /// The capabilities the kernel knew up to Linux 6.x, by number.
    static let names: [Int: String] = [
        0: "CAP_CHOWN", 1: "CAP_DAC_OVERRIDE", 2: "CAP_DAC_READ_SEARCH", 3: "CAP_FOWNER", 4: "CAP_FSETID",
        5: "CAP_KILL", 6: "CAP_SETGID", 7: "CAP_SETUID", 8: "CAP_SETPCAP", 9: "CAP_LINUX_IMMUTABLE",
        10: "CAP_NET_BIND_SERVICE", 11: "CAP_NET_BROADCAST", 12: "CAP_NET_ADMIN", 13: "CAP_NET_RAW",
        14: "CAP_IPC_LOCK", 15: "CAP_IPC_OWNER", 16: "CAP_SYS_MODULE", 17: "CAP_SYS_RAWIO", 18: "CAP_SYS_CHROOT",
        19: "CAP_SYS_PTRACE", 20: "CAP_SYS_PACCT", 21: "CAP_SYS_ADMIN", 22: "CAP_SYS_BOOT", 23: "CAP_SYS_NICE",
        24: "CAP_SYS_RESOURCE", 25: "CAP_SYS_TIME", 26: "CAP_SYS_TTY_CONFIG", 27: "CAP_MKNOD", 28: "CAP_LEASE",
        29: "CAP_AUDIT_WRITE", 30: "CAP_AUDIT_CONTROL", 31: "CAP_SETFCAP", 32: "CAP_MAC_OVERRIDE",
        33: "CAP_MAC_ADMIN", 34: "CAP_SYSLOG", 35: "CAP_WAKE_ALARM", 36: "CAP_BLOCK_SUSPEND", 37: "CAP_AUDIT_READ",
        38: "CAP_PERFMON", 39: "CAP_BPF", 40: "CAP_CHECKPOINT_RESTORE",
    ]

    /// `CAP_CHOWN` (0): change file owners.
    public static let chown = LinuxCapabilitySet(number: 0)
    /// `CAP_DAC_OVERRIDE` (1): bypass file read, write and execute permission checks.
    public static let dacOverride = LinuxCapabilitySet(number: 1)
    /// `CAP_DAC_READ_SEARCH` (2): bypass file read and directory search permission checks.
    public static let dacReadSearch = LinuxCapabilitySet(number: 2)
    /// `CAP_FOWNER` (3): bypass checks that the caller owns the file.
    public static let fowner = LinuxCapabilitySet(number: 3)
    /// `CAP_KILL` (5): send signals to any process.
    public static let kill = LinuxCapabilitySet(number: 5)
    /// `CAP_SETGID` (6): change group ids.
    public static let setgid = LinuxCapabilitySet(number: 6)
    /// `CAP_SETUID` (7): change user ids.
    public static let setuid = LinuxCapabilitySet(number: 7)
    /// `CAP_NET_BIND_SERVICE` (10): bind to ports below 1024.
    public static let netBindService = LinuxCapabilitySet(number: 10)
    /// `CAP_NET_ADMIN` (12): configure network interfaces, routes and firewalls.
    public static let netAdmin = LinuxCapabilitySet(number: 12)
    /// `CAP_NET_RAW` (13): use raw and packet sockets (ping).
    public static let netRaw = LinuxCapabilitySet(number: 13)
    /// `CAP_IPC_LOCK` (14): lock memory (`mlock`).
    public static let ipcLock = LinuxCapabilitySet(number: 14)
    /// `CAP_SYS_CHROOT` (18): call `chroot`.
    public static let sysChroot = LinuxCapabilitySet(number: 18)
    /// `CAP_SYS_PTRACE` (19): trace any process.
    public static let sysPtrace = LinuxCapabilitySet(number: 19)
    /// `CAP_SYS_ADMIN` (21): mount file systems and much more.
    public static let sysAdmin = LinuxCapabilitySet(number: 21)
    /// `CAP_SYS_NICE` (23): raise priorities and set real-time scheduling.
    public static let sysNice = LinuxCapabilitySet(number: 23)
    /// `CAP_SYS_RESOURCE` (24): override resource limits.
    public static let sysResource = LinuxCapabilitySet(number: 24)
    /// `CAP_SYS_TIME` (25): set the system clock.
    public static let sysTime = LinuxCapabilitySet(number: 25)
    /// `CAP_PERFMON` (38): use performance monitoring.
    public static let perfmon = LinuxCapabilitySet(number: 38)
    /// `CAP_BPF` (39): load BPF programs.
    public static let bpf = LinuxCapabilitySet(number: 39)
}
