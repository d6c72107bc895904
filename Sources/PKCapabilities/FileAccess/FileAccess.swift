extension Capability {

    /// Read, write or execute access to a path for this process, and whether the path exists; requesting
    /// authorization can create a missing directory when you opt in.
    ///
    /// ```swift
    /// let cache = Capability.FileAccess([.read, .write], at: "/var/cache/app", createIfMissing: .directory())
    /// job.add(condition: AuthorizedFor(cache))
    /// ```
    ///
    /// - Requirement: the ``Mode`` needed (a directory needs ``Mode/execute`` to be entered).
    /// - Status: ``Status/accessible(_:granted:)`` with what the process is granted, ``Status/missing``, or
    ///   ``Status/inaccessible(_:)`` when the path could not be examined (a directory on the way may not be
    ///   searched, say). Only an accessible path granting the whole requirement meets it.
    /// - Available when the path is usable (not empty, no NUL character).
    /// - Requesting authorization creates the directory, with any missing parents, when the path is missing and
    ///   `createIfMissing` is ``Creation/directory(permissions:)``; otherwise it changes nothing. It never changes
    ///   permissions of what exists.
    ///
    /// The ``checker`` decides what "granted" means: ``EffectiveAccessChecker`` (the default) asks the kernel for
    /// this process (`faccessat(2)` with `AT_EACCESS`), which says yes to almost everything when the process runs
    /// as root; ``PermissionBitsChecker`` answers for an unprivileged user from the permission bits, so a root CI
    /// job can check what a service account would be allowed.
    ///
    /// Every answer is synchronous, on the calling thread.
    public final class FileAccess: CapabilityProtocol, CustomStringConvertible {

        /// The path, as given (a relative path is relative to the working directory when checked).
        public let path: String
        /// The access needed.
        public let requirement: Mode?
        /// What requesting authorization does about a missing path.
        public let creation: Creation
        /// Who decides what is granted.
        public let checker: any FileAccessChecker

        /// Why the last creation failed; cleared by a successful one.
        private let creationFailure = PKMutex<FileAccessError?>(nil)

        /// Creates the capability.
        ///
        /// - Parameters:
        ///   - required: The access needed.
        ///   - path: The path.
        ///   - creation: What requesting authorization does about a missing path; `.never` by default.
        ///   - checker: Who decides what is granted; the kernel, for this process, by default.
        public init(
            _ required: Mode, at path: String, createIfMissing creation: Creation = .never,
            checker: any FileAccessChecker = EffectiveAccessChecker()
        ) {
            requirement = required
            self.path = path
            self.creation = creation
            self.checker = checker
        }

        /// `true` when the path is not empty and has no NUL character.
        public func isAvailable() -> Bool { unavailableReason() == nil }

        /// Asks the checker and calls `completion` at once, on the calling thread.
        public func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void) {
            completion(checker.status(ofItemAt: path))
        }

        /// Creates the missing directory when `creation` allows it, then calls `completion` on the calling
        /// thread. A failure is remembered and reported by ``unauthorizedReason(for:)``.
        public func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
            if case .directory(let permissions) = creation, case .missing = checker.status(ofItemAt: path) {
                do {
                    try checker.createDirectory(atPath: path, permissions: permissions)
                    creationFailure.withLock { $0 = nil }
                } catch {
                    creationFailure.withLock { $0 = error }
                }
            }
            completion()
        }

        /// ``FileAccessError/invalidPath(_:)`` for an unusable path; `nil` otherwise.
        public func unavailableReason() -> (any Error)? {
            path.isEmpty || path.contains("\0") ? FileAccessError.invalidPath(path) : nil
        }

        /// What is missing: ``FileAccessError/denied(path:missing:granted:)``, ``FileAccessError/missing(path:)``,
        /// the last creation failure, or the error examining the path.
        public func unauthorizedReason(for status: Status) -> (any Error)? {
            switch status {
            case .accessible(_, let granted):
                let missing = (requirement ?? []).subtracting(granted)
                return missing.isEmpty ? nil : FileAccessError.denied(path: path, missing: missing, granted: granted)
            case .missing:
                return creationFailure.withLock { $0 } ?? FileAccessError.missing(path: path)
            case .inaccessible(let error):
                return error
            }
        }

        /// The error of the last failed attempt to create the directory, if the last attempt failed.
        public var lastCreationFailure: FileAccessError? { creationFailure.withLock { $0 } }

        /// `FileAccess(read, write at <path>)`.
        public var description: String { "FileAccess(\(requirement ?? []) at \(path))" }
    }
}
