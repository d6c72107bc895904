import Dispatch
import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The dispatch signal sources a ``ShutdownCoordinator`` listens to, one per signal; see
/// ``ShutdownCoordinator/handleSignals(_:)`` for why they exist only when the program asks.
///
/// Sources are created on a private serial queue and never removed while the owner lives: the process-wide
/// signal dispositions they change cannot be put back anyway. They are cancelled when the owner goes away.
final class ShutdownSignalSources: Sendable {

    /// Dispatch sources are thread-safe objects; the box only lets one be stored under the lock.
    private struct SourceBox: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    private let queue = DispatchQueue(label: "PKObservers.ShutdownCoordinator.signals")
    private let sources = PKMutex<[Int32: SourceBox]>([:])

    /// The signals listened to, in ascending order.
    var signals: [Int32] { sources.withLock { $0.keys.sorted() } }

    /// Listens to each signal of `signals` not listened to yet: sets its disposition to `SIG_IGN`, then creates a
    /// dispatch source that calls `handler` with the signal once per delivery, on a private queue.
    ///
    /// Returns once every new source is registered with the system (libdispatch has installed its handler), or
    /// after `registrationTimeout` seconds at most; the result says which signals are registered in time.
    func listen(
        to signals: [Int32], registrationTimeout: Double = 5, handler: @escaping @Sendable (Int32) -> Void
    ) -> Bool {
        let registered = DispatchGroup()
        for signalNumber in Set(signals).sorted() {
            let source = sources.withLock { sources -> (any DispatchSourceSignal)? in
                guard sources[signalNumber] == nil else { return nil }
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                sources[signalNumber] = SourceBox(source: source)
                return source
            }
            guard let source else { continue }
            // Until libdispatch installs its handler, the default action (terminating, for SIGTERM and SIGINT)
            // must not run; on Darwin, SIG_IGN is what stops the default action for good. Only while the default
            // is in place: libdispatch installs its handler once per signal and process, so ignoring the signal
            // after that (for a second coordinator, say) would silence it for good.
            if Self.hasDefaultDisposition(signalNumber) { signal(signalNumber, SIG_IGN) }
            // The handler holds its source until the source is cancelled (in deinit), which releases the handler.
            source.setEventHandler {
                // `data` counts the deliveries merged since the handler last ran.
                let count = max(1, Int(source.data))
                for _ in 0..<count { handler(signalNumber) }
            }
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.resume()
        }
        return registered.wait(timeout: .now() + registrationTimeout) == .success
    }

    /// Whether `signalNumber` still has its default disposition (no handler installed, not ignored).
    private static func hasDefaultDisposition(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signalNumber, nil, &current) == 0 else { return false }
        #if canImport(Darwin)
            return current.__sigaction_u.__sa_handler == nil
        #else
            return current.__sigaction_handler.sa_handler == nil
        #endif
    }

    deinit {
        for box in sources.withLock({ Array($0.values) }) { box.source.cancel() }
    }
}
