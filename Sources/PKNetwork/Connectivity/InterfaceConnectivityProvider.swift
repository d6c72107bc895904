import Dispatch
import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The default ``ConnectivityProvider``: the network counts as reachable when a non-loopback interface is up and
/// running with an IPv4 or IPv6 address (from `getifaddrs`).
///
/// That is all a process can know cheaply and without privileges: it says nothing about routes, DNS or whether a
/// given host answers (use a request, or PKCapabilities' host reachability, for that). Interfaces named `wwan…` count
/// as ``NetworkConnectionType/wwan``, every other one as ``NetworkConnectionType/ethernetOrWiFi``. Changes are found
/// by polling every ``pollInterval`` while monitoring.
public final class InterfaceConnectivityProvider: ConnectivityProvider {

    /// How often the interfaces are read while monitoring.
    public let pollInterval: Duration

    /// The polling timer while monitoring; guarded by this lock.
    private let timer = PKMutex<PollingTimer?>(nil)

    /// Creates a provider that polls every `pollInterval` (1 s by default) while monitoring, kept between 10 ms and
    /// a day (a zero or negative interval would trap the timer; a longer one would never notice a change).
    public init(pollInterval: Duration = .seconds(1)) {
        self.pollInterval = min(max(pollInterval, .milliseconds(10)), .seconds(86_400))
    }

    /// Reads the interfaces now.
    public func currentStatus() -> NetworkStatus {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return .notReachable }
        defer { freeifaddrs(list) }
        var best: NetworkStatus = .notReachable
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_RUNNING) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                let address = entry.pointee.ifa_addr
            else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            if name.hasPrefix("wwan") {
                if best == .notReachable { best = .reachable(.wwan) }
            } else {
                best = .reachable(.ethernetOrWiFi)
            }
        }
        return best
    }

    /// Starts polling; reports only changes.
    public func startMonitoring(onChange: @escaping @Sendable (NetworkStatus) -> Void) {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let last = PKMutex(currentStatus())
        let interval = pollInterval.timeInterval
        source.schedule(deadline: .now() + interval, repeating: interval)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            let status = self.currentStatus()
            let changed = last.withLock { last in
                defer { last = status }
                return last != status
            }
            if changed { onChange(status) }
        }
        let previous = timer.withLock { timer in
            defer { timer = PollingTimer(source: source) }
            return timer
        }
        previous?.source.cancel()
        source.resume()
    }

    /// Stops polling.
    public func stopMonitoring() {
        let source = timer.withLock { timer in
            defer { timer = nil }
            return timer
        }
        source?.source.cancel()
    }
}

/// A dispatch timer source, which is thread-safe but not marked `Sendable`.
private final class PollingTimer: @unchecked Sendable {
    // @unchecked Sendable: DispatchSource's methods are thread-safe; the reference itself is only read and
    // replaced under the provider's `timer` lock.
    let source: any DispatchSourceTimer
    init(source: any DispatchSourceTimer) { self.source = source }
}
