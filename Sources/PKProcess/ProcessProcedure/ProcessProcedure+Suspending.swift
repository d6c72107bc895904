import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ProcessProcedure {

    /// Stops the process and its process group (`SIGSTOP`), as `Process.suspend()` does; `completion` gets whether
    /// it was running.
    ///
    /// Suspensions count: as many ``resume(completion:)`` calls as `suspend` calls continue the process. A
    /// process that is not running (not launched, ended, or cancelled) is left alone and `completion` gets
    /// `false`. A cancelled process is continued so that it can act on `SIGTERM`. `completion` is called on a
    /// global dispatch queue.
    public func suspend(completion: @escaping @Sendable (Bool) -> Void) {
        let accepted = isExecuting && lifecycle.suspend()
        DispatchQueue.global().async { completion(accepted) }
    }

    /// Continues a process stopped by ``suspend(completion:)`` once every suspension is balanced (`SIGCONT`);
    /// `completion` gets whether it was suspended. `completion` is called on a global dispatch queue.
    public func resume(completion: @escaping @Sendable (Bool) -> Void) {
        let accepted = isExecuting && lifecycle.resume()
        DispatchQueue.global().async { completion(accepted) }
    }
}
