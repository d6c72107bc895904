import Foundation

extension ProcessProcedure {

    /// The arguments of the ``LaunchRequest`` (`nil` until there is one).
    public var arguments: [String]? { input.value?.arguments }

    /// The working directory of the ``LaunchRequest``.
    public var currentDirectoryURL: URL? { input.value?.currentDirectoryURL }

    /// The environment of the ``LaunchRequest``.
    public var environment: [String: String]? { input.value?.environment }

    /// The executable of the ``LaunchRequest``.
    public var executableURL: URL? { input.value?.executableURL }

    /// The standard error of the ``LaunchRequest``.
    public var standardError: (any Sendable)? { input.value?.standardError }

    /// The standard input of the ``LaunchRequest``.
    public var standardInput: (any Sendable)? { input.value?.standardInput }

    /// The standard output of the ``LaunchRequest``.
    public var standardOutput: (any Sendable)? { input.value?.standardOutput }
}
