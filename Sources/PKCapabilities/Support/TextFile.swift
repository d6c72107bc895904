#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small POSIX helpers for reading and writing whole text files, reporting failures with `errno`'s message.
enum TextFile {

    /// Why a file could not be read or written.
    struct Failure: Error {
        /// `errno` when the failure came from a system call.
        let code: Int32
        /// What failed, such as `"open: No such file or directory"`.
        let reason: String

        init(_ call: String, code: Int32 = errno) {
            self.code = code
            reason = "\(call): \(systemErrorMessage(code))"
        }
    }

    /// The file's bytes decoded as UTF-8 (invalid sequences replaced), or a ``Failure``; `limit` bytes at most
    /// (more is a failure: these files are small).
    static func contents(of path: String, limit: Int = 1 << 20) throws(Failure) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure("open") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure("read")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > limit { throw Failure("read", code: EFBIG) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces the file at `path` with `text`, readable and writable by its owner only (mode 0600): writes a
    /// temporary file next to it, then renames it over the old one, so a reader never sees half a file.
    static func replace(_ path: String, with text: String) throws(Failure) {
        // A fresh name each time, created exclusively and never through a symbolic link: a file or link planted
        // under a predictable name would otherwise receive the text (with its own mode), and two saves would share
        // one temporary file. The mode is set on the descriptor too, whatever the umask.
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<8 {
            temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw Failure("open") }
        guard fchmod(descriptor, 0o600) == 0 else {
            let failure = Failure("fchmod")
            close(descriptor)
            unlink(temporary)
            throw failure
        }
        var bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                write(descriptor, $0.baseAddress! + written, $0.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = Failure("write")
                close(descriptor)
                unlink(temporary)
                throw failure
            }
            written += count
        }
        bytes.removeAll()
        guard fsync(descriptor) == 0 else {
            let failure = Failure("fsync")
            close(descriptor)
            unlink(temporary)
            throw failure
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let failure = Failure("rename")
            unlink(temporary)
            throw failure
        }
    }
}

/// `strerror(code)`, such as `"Permission denied"`.
func systemErrorMessage(_ code: Int32) -> String {
    guard let message = strerror(code) else { return "error \(code)" }
    return String(cString: message)
}
