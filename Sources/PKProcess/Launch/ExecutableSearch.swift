import Foundation

/// The search for a command in `PATH`, as a shell does it (`execvp`'s rules, less its fallback to the working
/// directory).
enum ExecutableSearch {

    /// `PATH` when neither the request's environment nor this process's has one.
    static let defaultPath = "/usr/local/bin:/usr/bin:/bin"

    /// The file `command` names, or why there is none (with, then, the URL the command would have as a path).
    static func find(
        _ command: String, environment: [String: String]?
    ) -> (url: URL, failure: ProcessProcedure.Error?) {
        guard !command.isEmpty else {
            return (URL(fileURLWithPath: "/"), .emptyLaunchPath)
        }
        if command.contains("/") {
            return (URL(fileURLWithPath: command), nil)
        }
        let path = environment?["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? defaultPath
        let directories = path.split(separator: ":", omittingEmptySubsequences: true)
        var foundButNotExecutable: String?
        for directory in directories {
            let candidate = "\(directory)/\(command)"
            var information = stat()
            guard stat(candidate, &information) == 0, (information.st_mode & S_IFMT) == S_IFREG else { continue }
            if access(candidate, X_OK) == 0 { return (URL(fileURLWithPath: candidate), nil) }
            foundButNotExecutable = foundButNotExecutable ?? candidate
        }
        let detail =
            if let foundButNotExecutable {
                "\(command): \(foundButNotExecutable) is not executable, and no other directory of PATH (\(path)) has it"
            } else {
                "\(command) was found in no directory of PATH (\(path))"
            }
        return (
            URL(fileURLWithPath: command),
            ProcessProcedure.Error(code: .executableNotFound, detail: detail)
        )
    }
}
