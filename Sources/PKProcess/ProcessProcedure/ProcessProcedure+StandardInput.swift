import Foundation
import PKCore

extension ProcessProcedure {

    /// Makes `dependency` a dependency and, once it has succeeded, writes its output to this process's standard
    /// input (replacing the request's). A dependency that failed or was cancelled cancels this procedure, as
    /// `injectResult(from:)` does. Returns this procedure, so that calls chain.
    @discardableResult
    public func injectStandardInput<Dependency: OutputProcedure>(from dependency: Dependency) -> Self
    where Dependency.Output == Data {
        injectResult(from: dependency) { receiver, data in receiver.setStandardInput(.data(data)) }
    }

    /// Makes `process` a dependency and, once it has succeeded, writes what it captured of its standard output
    /// (``ProcessOutputDestination/capture(limit:)``) to this process's standard input: a pipeline stage by
    /// stage, each stage's output held in memory. Returns this procedure, so that calls chain.
    @discardableResult
    public func injectStandardInput(from process: ProcessProcedure) -> Self {
        injectResult(from: process) { receiver, result in receiver.setStandardInput(.data(result.standardOutput)) }
    }
}
