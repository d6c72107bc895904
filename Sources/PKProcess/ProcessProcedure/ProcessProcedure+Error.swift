import Foundation

extension ProcessProcedure {

    /// Why a ``ProcessProcedure`` failed: ProcedureKit's three errors (``emptyLaunchPath``, ``invalidLaunchPath``,
    /// ``didNotExitCleanly(_:_:)``) and those this module adds for bad input and launch failures, each with a
    /// ``code`` to switch on and a human-readable ``detail``.
    ///
    /// A struct rather than ProcedureKit's enum, so that an error carries what explains it (the path that was
    /// wrong, the tail of the child's standard error) and new codes can be added without breaking a `switch`.
    /// ProcedureKit's spellings still compile and compare: `error == .invalidLaunchPath`,
    /// `case .emptyLaunchPath:` in a `switch` over an error, `.didNotExitCleanly(1, .exit)`. Two errors are equal
    /// when their code, status and reason are: the detail and standard error tail only describe.
    public struct Error: Swift.Error, Equatable, Sendable, CustomStringConvertible {

        /// What went wrong.
        public enum Code: Sendable, Hashable {
            /// The launch path is empty.
            case emptyLaunchPath
            /// The launch path is not an absolute file path, does not exist, is a directory or is not executable.
            case invalidLaunchPath
            /// A command (``ProcessProcedure/LaunchRequest/init(command:arguments:currentDirectoryURL:environment:standardInput:standardOutput:standardError:)``)
            /// was found in none of the `PATH` directories.
            case executableNotFound
            /// An argument contains a NUL byte, which a C string cannot carry.
            case invalidArguments
            /// An environment key is empty or contains `=` or NUL, or a value contains NUL.
            case invalidEnvironment
            /// The working directory does not exist or is not a directory.
            case invalidCurrentDirectory
            /// A standard stream is of a type this module does not handle, a file for it could not be opened, or a
            /// `Pipe` end for it was given to another procedure first.
            case invalidStandardStream
            /// `posix_spawn` (or a descriptor it needed) failed; ``Error/detail`` has the system's message.
            case launchFailed
            /// The process exited, but the `processDidExitCleanly` rule said it did not exit cleanly.
            case didNotExitCleanly
            /// The process wrote more than a ``ProcessOutputDestination/capture(limit:)`` limit allowed (and exited
            /// cleanly otherwise).
            case outputLimitExceeded
            /// The process ended, but something else in this program reaped it first (`SIGCHLD` set to `SIG_IGN`, or
            /// a library that calls `waitpid(-1)`), so how it ended is unknown.
            case statusUnavailable
        }

        /// What went wrong.
        public let code: Code

        /// The process's exit status, or the signal that ended it (`didNotExitCleanly`, `outputLimitExceeded`);
        /// `0` otherwise.
        public let status: Int32

        /// How the process ended (`didNotExitCleanly`, `outputLimitExceeded`); `.exit` otherwise.
        public let reason: Process.TerminationReason

        /// What was wrong, in words: the path, argument or key at fault, or the system's message.
        public let detail: String

        /// The last lines the process wrote to standard error (at most
        /// ``ProcessOutputDestination/standardErrorTailLimit`` bytes), when standard error was captured, streamed
        /// or logged; `nil` when it went elsewhere.
        public let standardErrorTail: String?

        /// An error with `code`, for a process that ended with `status` and `reason`.
        public init(
            code: Code, status: Int32 = 0, reason: Process.TerminationReason = .exit, detail: String = "",
            standardErrorTail: String? = nil
        ) {
            self.code = code
            self.status = status
            self.reason = reason
            self.detail = detail
            self.standardErrorTail = standardErrorTail
        }

        /// ProcedureKit's error for an empty launch path.
        public static let emptyLaunchPath = Error(code: .emptyLaunchPath, detail: "the launch path is empty")

        /// ProcedureKit's error for a launch path that is not an executable file.
        public static let invalidLaunchPath = Error(code: .invalidLaunchPath)

        /// ProcedureKit's error for a process that did not exit cleanly: its exit status (or signal) and reason.
        public static func didNotExitCleanly(_ status: Int32, _ reason: Process.TerminationReason) -> Error {
            Error(code: .didNotExitCleanly, status: status, reason: reason)
        }

        /// Equal when the codes, statuses and reasons are.
        public static func == (lhs: Error, rhs: Error) -> Bool {
            lhs.code == rhs.code && lhs.status == rhs.status && lhs.reason == rhs.reason
        }

        /// The code, the detail, and the standard error tail when there is one.
        public var description: String {
            var text: String
            switch code {
            case .emptyLaunchPath: text = "empty launch path"
            case .invalidLaunchPath: text = "invalid launch path"
            case .executableNotFound: text = "executable not found"
            case .invalidArguments: text = "invalid arguments"
            case .invalidEnvironment: text = "invalid environment"
            case .invalidCurrentDirectory: text = "invalid working directory"
            case .invalidStandardStream: text = "invalid standard stream"
            case .launchFailed: text = "launch failed"
            case .didNotExitCleanly:
                text = reason == .exit ? "exited with status \(status)" : "killed by signal \(status)"
            case .outputLimitExceeded:
                text = "output limit exceeded"
            case .statusUnavailable:
                text = "exit status unavailable"
            }
            if !detail.isEmpty { text += ": \(detail)" }
            if let standardErrorTail, !standardErrorTail.isEmpty {
                text += "\n--- standard error (last lines) ---\n" + standardErrorTail
            }
            return text
        }

        func with(detail: String) -> Error {
            Error(code: code, status: status, reason: reason, detail: detail, standardErrorTail: standardErrorTail)
        }
    }
}
