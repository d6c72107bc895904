import Foundation

extension ProcessProcedure {

    /// What to launch and how: a ``ProcessProcedure``'s input, given to an initialiser or injected from another
    /// procedure (`injectResult(from:)`).
    ///
    /// The standard streams are ProcedureKit's `Any?`, made `Sendable`: `nil` inherits this process's stream, and
    /// a `FileHandle`, a `Pipe`, a ``ProcessInputSource`` (input; `Data` too) or a ``ProcessOutputDestination``
    /// (output and error) are accepted. Anything else fails the procedure with
    /// ``ProcessProcedure/Error/Code/invalidStandardStream`` when it executes. Nothing is checked when a request is
    /// made: bad input is reported by the procedure, as a typed error.
    public struct LaunchRequest: Sendable {

        /// The executable to launch: an absolute file URL.
        public let executableURL: URL

        /// The arguments after the executable's path (which is the child's `argv[0]`).
        public let arguments: [String]?

        /// The child's working directory; `nil` for this process's.
        public let currentDirectoryURL: URL?

        /// The child's whole environment; `nil` for a copy of this process's.
        public let environment: [String: String]?

        /// Standard error: `nil` (inherit), a `FileHandle`, a `Pipe` or a ``ProcessOutputDestination``.
        public let standardError: (any Sendable)?

        /// Standard input: `nil` (inherit), a `FileHandle`, a `Pipe`, `Data` or a ``ProcessInputSource``.
        public let standardInput: (any Sendable)?

        /// Standard output: `nil` (inherit), a `FileHandle`, a `Pipe` or a ``ProcessOutputDestination``.
        public let standardOutput: (any Sendable)?

        /// Why the ``init(command:arguments:currentDirectoryURL:environment:standardInput:standardOutput:standardError:)``
        /// search failed, reported when the procedure executes.
        var searchFailure: ProcessProcedure.Error?

        /// A request to launch the executable at `executableURL` (ProcedureKit's initialiser).
        public init(
            executableURL: URL, arguments: [String]? = nil, currentDirectoryURL: URL? = nil,
            environment: [String: String]? = nil, standardError: (any Sendable)? = nil,
            standardInput: (any Sendable)? = nil, standardOutput: (any Sendable)? = nil
        ) {
            self.executableURL = executableURL
            self.arguments = arguments
            self.currentDirectoryURL = currentDirectoryURL
            self.environment = environment
            self.standardError = standardError
            self.standardInput = standardInput
            self.standardOutput = standardOutput
            self.searchFailure = nil
        }

        /// A request to launch `command` as a shell would: a name without `/` is looked for in the directories of
        /// `PATH` (the given `environment`'s, else this process's, else `/usr/local/bin:/usr/bin:/bin`), the first
        /// executable regular file found winning; a name with `/` is a path (a relative one is refused).
        ///
        /// The search happens here, so ``executableURL`` is the file found. When none is, the procedure fails with
        /// ``ProcessProcedure/Error/Code/executableNotFound`` naming the directories searched. Empty `PATH` entries
        /// (which a shell reads as the working directory) are skipped.
        public init(
            command: String, arguments: [String] = [], currentDirectoryURL: URL? = nil,
            environment: [String: String]? = nil, standardInput: ProcessInputSource = .inherit,
            standardOutput: ProcessOutputDestination = .inherit, standardError: ProcessOutputDestination = .inherit
        ) {
            let search = ExecutableSearch.find(command, environment: environment)
            self.executableURL = search.url
            self.arguments = arguments
            self.currentDirectoryURL = currentDirectoryURL
            self.environment = environment
            self.standardError = standardError
            self.standardInput = standardInput
            self.standardOutput = standardOutput
            self.searchFailure = search.failure
        }
    }

    /// How the process ended: ProcedureKit's status and reason, and what was captured of its output.
    public struct TerminationResult: Sendable, Equatable {

        /// The exit status (reason `.exit`) or the number of the signal that ended the process
        /// (`.uncaughtSignal`).
        public let status: Int32

        /// Whether the process exited or was ended by a signal.
        public let reason: Process.TerminationReason

        /// Standard output, when it was captured (``ProcessOutputDestination/capture(limit:)``); empty otherwise.
        public let standardOutput: Data

        /// Standard error, when it was captured; empty otherwise.
        public let standardError: Data

        /// A result for a process that ended with `status` and `reason`, having written `standardOutput` and
        /// `standardError`.
        public init(
            status: Int32, reason: Process.TerminationReason, standardOutput: Data = Data(),
            standardError: Data = Data()
        ) {
            self.status = status
            self.reason = reason
            self.standardOutput = standardOutput
            self.standardError = standardError
        }

        /// The captured standard output as UTF-8 text (invalid bytes replaced), without one trailing newline, as
        /// a shell's `$(…)` gives it.
        public var standardOutputText: String {
            var text = String(decoding: standardOutput, as: UTF8.self)
            if text.last?.isNewline == true { text.removeLast() }
            return text
        }
    }
}

extension ProcessProcedure.LaunchRequest {

    /// Closes this process's copies of the child's ends of `Pipe` streams, as a launch would have: called when the
    /// procedure finishes without launching, so that whatever waits at the pipe's other end (another process, a
    /// reader) is not left waiting for a child that never came. Only ends that `owner` may claim are closed: an end
    /// another procedure claimed first is that procedure's to close (``PipeEndClaims``).
    func releasePipeEnds(inputOverride: ProcessInputSource?, owner: AnyObject) {
        withHandlesLocked { claims in
            var ends: [FileHandle] = []
            if inputOverride == nil, case .pipe(let pipe) = ProcessInputSource.from(standardInput)?.kind {
                ends.append(pipe.fileHandleForReading)
            }
            for stream in [standardOutput, standardError] {
                if case .pipe(let pipe) = ProcessOutputDestination.from(stream)?.kind {
                    ends.append(pipe.fileHandleForWriting)
                }
            }
            for end in ends where claims.claim(end, for: owner) { try? end.close() }
        }
    }
}
