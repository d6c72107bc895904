#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system calls the checkers share.
enum FileSystemCalls {

    /// `stat(2)` of `path`, or its `errno`.
    static func examine(_ path: String) -> Result<stat, TextFile.Failure> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(TextFile.Failure("stat")) }
        return .success(info)
    }

    /// What `info` describes.
    static func kind(of info: stat) -> Capability.FileAccess.Kind {
        switch info.st_mode & S_IFMT {
        case S_IFREG: .file
        case S_IFDIR: .directory
        default: .other
        }
    }

    /// `path` made absolute against the working directory.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return "/" + path }
        defer { free(cwd) }
        let base = String(cString: cwd)
        return (base.hasSuffix("/") ? base : base + "/") + path
    }

    /// The directories leading to `absolute`, from `/` down to its parent.
    static func ancestors(of absolute: String) -> [String] {
        let components = absolute.split(separator: "/").map(String.init)
        var result = ["/"]
        var current = ""
        for component in components.dropLast() {
            current += "/" + component
            result.append(current)
        }
        return result
    }

    /// Creates `path` and its missing parents with `mkdir(2)`; an existing directory is fine.
    static func makeDirectories(_ path: String, permissions: UInt32) throws(FileAccessError) {
        let absolute = absolute(path)
        for directory in ancestors(of: absolute).dropFirst() + [absolute] {
            if mkdir(directory, mode_t(permissions)) == 0 { continue }
            let code = errno
            if code == EEXIST, case .success(let info) = examine(directory), kind(of: info) == .directory { continue }
            throw .couldNotCreate(path: path, code: code, reason: "mkdir \(directory): \(systemErrorMessage(code))")
        }
    }
}
