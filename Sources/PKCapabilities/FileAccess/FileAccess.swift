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

        /// Kinds of access, as `access(2)` names them.
        public struct Mode: OptionSet, Hashable, Sendable, CustomStringConvertible {
            /// The bits.
            public let rawValue: Int
            /// Creates modes from bits.
            public init(rawValue: Int) { self.rawValue = rawValue }

            /// Read a file, or list a directory.
            public static let read = Mode(rawValue: 1 << 0)
            /// Write a file, or create and remove entries in a directory.
            public static let write = Mode(rawValue: 1 << 1)
            /// Execute a file, or enter (search) a directory.
            public static let execute = Mode(rawValue: 1 << 2)

            /// `"read, write"`, or `"no"` for the empty set.
            public var description: String {
                let names = [(Mode.read, "read"), (.write, "write"), (.execute, "execute")]
                    .filter { contains($0.0) }.map(\.1)
                return names.isEmpty ? "no" : names.joined(separator: ", ")
            }
        }

        /// What is at a path.
        public enum Kind: Hashable, Sendable {
            /// A regular file.
            case file
            /// A directory.
            case directory
            /// Something else: a device, a socket, a pipe.
            case other
        }

        /// What the checker found at the path.
        public enum Status: AuthorizationStatus, Hashable, CustomStringConvertible {
            /// The path exists (symbolic links followed) and grants `granted`.
            case accessible(Kind, granted: Mode)
            /// Nothing exists at the path.
            case missing
            /// The path could not be examined; the error says why.
            case inaccessible(FileAccessError)

            /// `true` when the path is accessible and grants all of `requirement`.
            public func meets(requirement: Mode?) -> Bool {
                guard case .accessible(_, let granted) = self else { return false }
                return granted.isSuperset(of: requirement ?? [])
            }

            /// `accessible(directory, read, write)`, `missing` or `inaccessible(<reason>)`.
            public var description: String {
                switch self {
                case .accessible(let kind, let granted): "accessible(\(kind), \(granted))"
                case .missing: "missing"
                case .inaccessible(let error): "inaccessible(\(error))"
                }
            }
        }

        /// What requesting authorization does about a missing path.
        public enum Creation: Hashable, Sendable {
            /// Nothing: a missing path stays missing.
            case never
            /// Create it as a directory, with any missing parents, each with `permissions` (before the umask).
            case directory(permissions: UInt32 = 0o755)
        }

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
