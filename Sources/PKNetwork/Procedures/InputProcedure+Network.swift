import Foundation

extension InputProcedure {
    /// Makes `dependency` a dependency and, once it has finished, injects the payload of its response as this
    /// procedure's input: ProcedureKit's `injectPayload(fromNetwork:)`.
    ///
    /// A response without a payload cancels this procedure with
    /// ``/PKCore/ProcedureKitError/Context/requirementNotSatisfied``; a dependency that failed or was cancelled
    /// cancels it as ``/PKCore/ProcedureProtocol/inject(dependency:block:)-(_,(Self,Dependency)->Void)`` does.
    /// Runs in this procedure's event context, before it executes. Returns this procedure.
    @discardableResult
    public func injectPayload<Dependency: OutputProcedure>(fromNetwork dependency: Dependency) -> Self
    where Dependency.Output: HTTPPayloadResponseProtocol, Dependency.Output.Payload == Input {
        inject(dependency: dependency) { receiver, dependency in
            guard let payload = dependency.output.success?.payload else {
                throw ProcedureKitError.requirementNotSatisfied()
            }
            receiver.input = .ready(payload)
        }
    }
}
