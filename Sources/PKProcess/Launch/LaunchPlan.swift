import Foundation

/// A ``ProcessProcedure/LaunchRequest`` checked and made concrete: everything `posix_spawn` needs, or the typed
/// error that explains why the request cannot be launched.
struct LaunchPlan: Sendable {
    let path: String
    /// `argv`, the path first.
    let arguments: [String]
    /// `envp`, as `KEY=value`; `nil` for this process's own (`environ`, passed as it is).
    let environment: [String]?
    let workingDirectory: String?
    let input: ProcessInputSource
    let output: ProcessOutputDestination
    let error: ProcessOutputDestination
    /// Whether the child leads a process group of its own (``ProcessProcedure/usesOwnProcessGroup``, decided).
    let usesOwnProcessGroup: Bool

    typealias Failure = ProcessProcedure.Error

    /// Checks `request`; `inputOverride` (from ``ProcessProcedure/injectStandardInput(from:)-(ProcessProcedure)``)
    /// replaces its standard input.
    init(
        _ request: ProcessProcedure.LaunchRequest, inputOverride: ProcessInputSource?, usesOwnProcessGroup: Bool = true
    ) throws(Failure) {
        self.usesOwnProcessGroup = usesOwnProcessGroup
        if let failure = request.searchFailure { throw failure }
        path = try Self.executablePath(request.executableURL)
        let arguments = request.arguments ?? []
        for (index, argument) in arguments.enumerated() where argument.utf8.contains(0) {
            throw Failure(
                code: .invalidArguments, detail: "argument \(index) contains a NUL byte: \(argument.debugDescription)")
        }
        self.arguments = [path] + arguments
        environment = try request.environment.map { variables throws(Failure) in try Self.environment(variables) }
        workingDirectory = try request.currentDirectoryURL.map { url throws(Failure) in try Self.directory(url) }
        guard let input = inputOverride ?? ProcessInputSource.from(request.standardInput) else {
            throw Failure(
                code: .invalidStandardStream, detail: Self.unsupported("standardInput", request.standardInput))
        }
        guard let output = ProcessOutputDestination.from(request.standardOutput) else {
            throw Failure(
                code: .invalidStandardStream, detail: Self.unsupported("standardOutput", request.standardOutput))
        }
        guard let error = ProcessOutputDestination.from(request.standardError) else {
            throw Failure(
                code: .invalidStandardStream, detail: Self.unsupported("standardError", request.standardError))
        }
        (self.input, self.output, self.error) = (input, output, error)
    }

    private static func unsupported(_ stream: String, _ value: (any Sendable)?) -> String {
        "\(stream) is a \(value.map { "\(type(of: $0))" } ?? "nil"); use nil, a FileHandle, a Pipe or a "
            + (stream == "standardInput" ? "ProcessInputSource (or Data)" : "ProcessOutputDestination")
    }

    /// The absolute path of an executable regular file, from ProcedureKit's checks and more.
    private static func executablePath(_ url: URL) throws(Failure) -> String {
        guard url.isFileURL else {
            throw Failure.invalidLaunchPath.with(detail: "\(url.absoluteString) is not a file URL")
        }
        let relative = url.relativePath
        guard !relative.isEmpty else { throw Failure.emptyLaunchPath }
        guard url.baseURL == nil, relative.hasPrefix("/") else {
            throw Failure.invalidLaunchPath.with(
                detail: "\(relative) is a relative path: give an absolute one, or use ProcessProcedure(command:) to "
                    + "search PATH")
        }
        let path = url.path
        guard !path.utf8.contains(0) else {
            throw Failure.invalidLaunchPath.with(detail: "the path contains a NUL byte")
        }
        var information = stat()
        guard stat(path, &information) == 0 else {
            throw Failure.invalidLaunchPath.with(detail: "\(path): \(String(cString: strerror(errno)))")
        }
        guard (information.st_mode & S_IFMT) != S_IFDIR else {
            throw Failure.invalidLaunchPath.with(detail: "\(path) is a directory")
        }
        guard access(path, X_OK) == 0 else {
            throw Failure.invalidLaunchPath.with(
                detail: "\(path) is not executable: \(String(cString: strerror(errno)))")
        }
        return path
    }

    private static func environment(_ variables: [String: String]) throws(Failure) -> [String] {
        var entries: [String] = []
        entries.reserveCapacity(variables.count)
        for (key, value) in variables {
            if key.isEmpty || key.contains("=") || key.utf8.contains(0) {
                throw Failure(
                    code: .invalidEnvironment,
                    detail: "the key \(key.debugDescription) is empty or contains '=' or a NUL byte")
            }
            if value.utf8.contains(0) {
                throw Failure(code: .invalidEnvironment, detail: "the value of \(key) contains a NUL byte")
            }
            entries.append("\(key)=\(value)")
        }
        return entries
    }

    private static func directory(_ url: URL) throws(Failure) -> String {
        let path = url.path
        guard url.isFileURL, !path.utf8.contains(0) else {
            throw Failure(code: .invalidCurrentDirectory, detail: "\(url) is not a file path")
        }
        var information = stat()
        guard stat(path, &information) == 0 else {
            throw Failure(code: .invalidCurrentDirectory, detail: "\(path): \(String(cString: strerror(errno)))")
        }
        guard (information.st_mode & S_IFMT) == S_IFDIR else {
            throw Failure(code: .invalidCurrentDirectory, detail: "\(path) is not a directory")
        }
        return path
    }
}
