import Foundation

/// Where a process's standard input comes from.
///
/// Pass it as a ``ProcessProcedure/LaunchRequest``'s `standardInput`, or feed input from another procedure with
/// ``ProcessProcedure/injectStandardInput(from:)-(ProcessProcedure)``. ProcedureKit's `FileHandle`, `Pipe` and
/// `nil` (inherit) are accepted there too, and so is `Data`.
public struct ProcessInputSource: Sendable {

    enum Kind: Sendable {
        case inherit
        case null
        case data(Data)
        case file(URL)
        case fileHandle(FileHandle)
        case pipe(Pipe)
    }

    let kind: Kind

    /// This process's standard input, shared with the child (ProcedureKit's and `Foundation.Process`'s default).
    /// A server should prefer ``null``: a child that reads a shared terminal or socket steals its input.
    public static let inherit = ProcessInputSource(kind: .inherit)

    /// `/dev/null`: the child reads end of file at once.
    public static let null = ProcessInputSource(kind: .null)

    /// `data`, written to the child through a pipe that is then closed, so the child reads end of file after it.
    /// A child that exits or closes its input before reading it all is not an error: the rest is dropped.
    public static func data(_ data: Data) -> ProcessInputSource { ProcessInputSource(kind: .data(data)) }

    /// `text` in UTF-8, as ``data(_:)`` writes it.
    public static func string(_ text: String) -> ProcessInputSource { .data(Data(text.utf8)) }

    /// The file at `url`, opened for reading when the process launches and given to the child directly (nothing
    /// is copied through this process). A file that cannot be opened fails the procedure with
    /// ``ProcessProcedure/Error/Code/invalidStandardStream``.
    ///
    /// A FIFO (named pipe) is given to the child once a writer has opened it, as a shell's `<` does (without the
    /// writer the child would read end of file at once): until then the procedure waits, launching nothing, and a
    /// cancel or a time limit ends the wait.
    public static func file(_ url: URL) -> ProcessInputSource { ProcessInputSource(kind: .file(url)) }

    /// An open file handle, duplicated into the child; the handle stays open and yours. `FileHandle.nullDevice`
    /// (which has no descriptor on Linux) is ``null``.
    public static func fileHandle(_ handle: FileHandle) -> ProcessInputSource {
        handle === FileHandle.nullDevice ? .null : ProcessInputSource(kind: .fileHandle(handle))
    }

    /// The read end of `pipe`, as `Foundation.Process` does: after launch this process closes its copy of that end,
    /// and you write to `pipe.fileHandleForWriting`. The end goes to one procedure: another procedure given it fails
    /// with ``ProcessProcedure/Error/Code/invalidStandardStream`` before launching, whichever launches first.
    public static func pipe(_ pipe: Pipe) -> ProcessInputSource { ProcessInputSource(kind: .pipe(pipe)) }

    /// The source for a ProcedureKit-style `standardInput: Any?`: `nil`, a ``ProcessInputSource``, `Data`, a
    /// `FileHandle` (`FileHandle.nullDevice` included) or a `Pipe`; anything else is `nil`.
    static func from(_ value: (any Sendable)?) -> ProcessInputSource? {
        switch value {
        case nil: .inherit
        case let source as ProcessInputSource: source
        case let data as Data: .data(data)
        case let pipe as Pipe: .pipe(pipe)
        case let handle as FileHandle: .fileHandle(handle)
        default: nil
        }
    }
}
