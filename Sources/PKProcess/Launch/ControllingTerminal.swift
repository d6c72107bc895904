#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// This process's controlling terminal, as far as a child's process group is concerned
/// (``ProcessProcedure/usesOwnProcessGroup``).
enum ControllingTerminal {

    /// Whether this process's group is the foreground process group of its controlling terminal: a command-line
    /// program run from a shell, whose children may read the terminal (a password prompt, an editor) and expect
    /// Ctrl-C. `false` without a controlling terminal (a service, a container without a TTY, a CI job, anything
    /// started by `setsid`) and in the background (`program &`).
    ///
    /// A child launched into a process group of its own is in the terminal's background: reading the terminal (its
    /// standard input, or `/dev/tty` as `sudo` and `ssh` do) stops it with `SIGTTIN`. Asked at each launch (a shell's
    /// job control moves a program between foreground and background); it costs an `open` of `/dev/tty`, which fails
    /// at once without a controlling terminal.
    static func thisProcessIsInTheForeground() -> Bool {
        let terminal = open("/dev/tty", O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard terminal >= 0 else { return false }
        defer { SystemCalls.close(terminal) }
        let foreground = tcgetpgrp(terminal)
        return foreground > 0 && foreground == getpgrp()
    }
}
