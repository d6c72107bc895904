import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``ConfirmationProvider`` that asks on the terminal: it writes `"<title>: <message> [y/N] "` and reads one
/// line.
///
/// - `y` or `yes` (any case, surrounding spaces ignored) → ``ConfirmationAnswer/confirmed``;
/// - any other line → ``ConfirmationAnswer/declined``;
/// - end of input → ``ConfirmationAnswer/unavailable(reason:)``.
///
/// When the input is not a terminal (a service, a CI job, a pipe) it answers
/// `.unavailable(reason: "standard input is not a terminal")` at once, on the calling thread, without writing a
/// prompt or reading anything; so a server never blocks on a question nobody can see.
///
/// Otherwise the prompt is written and the line read on a private serial dispatch queue shared by every terminal
/// provider, so questions are asked one at a time; `completion` runs on that queue. A question cannot be
/// withdrawn once asked: the read waits for a line even if the procedure was cancelled.
public struct TerminalConfirmationProvider: ConfirmationProvider {

    /// Where the answer is read from.
    public let input: FileHandle
    /// Where the question is written.
    public let output: FileHandle

    /// Serializes questions so that two prompts never interleave.
    private static let promptQueue = DispatchQueue(label: "PKConditions.TerminalConfirmationProvider")

    /// Creates a provider reading `input` and writing to `output`.
    public init(input: FileHandle = .standardInput, output: FileHandle = .standardError) {
        self.input = input
        self.output = output
    }

    /// Asks on the terminal (see the type's documentation); answers `unavailable` at once without a terminal.
    public func confirm(
        title: String, message: String, completion: @escaping @Sendable (ConfirmationAnswer) -> Void
    ) {
        let descriptor = input.fileDescriptor
        guard isatty(descriptor) == 1 else {
            completion(.unavailable(reason: "standard input is not a terminal"))
            return
        }
        let output = self.output
        Self.promptQueue.async {
            output.write(Data("\(title): \(message) [y/N] ".utf8))
            guard let line = Self.readLine(from: descriptor) else {
                completion(.unavailable(reason: "end of input"))
                return
            }
            let reply = line.trimmingCharacters(in: .whitespaces).lowercased()
            completion(reply == "y" || reply == "yes" ? .confirmed : .declined)
        }
    }

    /// Reads bytes up to a newline (not included); `nil` at end of input before any byte, or on a read error.
    private static func readLine(from descriptor: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
