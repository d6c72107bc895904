// The command line of ProcessPipeline: one optional size, whose default keeps a run well under a second.

/// What the command line asked for.
struct Options: Equatable {
    /// How many random bytes the pipeline generates, compresses and checksums.
    var size = 4 * 1024 * 1024
    /// `--help` was given.
    var showHelp = false

    /// The largest size accepted: 1 TiB.
    static let maximumSize = 1 << 40

    static let usage = """
        usage: ProcessPipeline [SIZE]

        Runs a pipeline of the system's tools, each a ProcessProcedure on a ProcedureQueue, in a temporary
        directory: `head -c SIZE /dev/urandom` writes SIZE random bytes to data.bin, `gzip -c -n` compresses that
        file (its standard input) into data.bin.gz, then `sha256sum` checksums the archive (its output captured)
        while `gzip -t` tests it. Prints what each stage did (a progress bar instead when standard output is a
        terminal), the sizes and the checksum, removes the directory and exits.

        SIGINT (Ctrl-C) or SIGTERM cancels the queue: the running stage's process group gets SIGTERM (SIGKILL two
        seconds later if it is still there), the temporary directory is removed, and the program exits with
        128 + the signal's number (130 for SIGINT) and a message saying so.

        SIZE is a number of bytes, or of KiB, MiB or GiB with the suffix K, M or G (4M, the default, is 4 MiB),
        at most 1T.

        exit status: 0 when every stage succeeded, 1 when one failed, 128 + n when signal n interrupted it, 64 for
        a bad command line.
        """

    /// A command line this program does not understand.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Reads `arguments` (without the program's name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var sizeGiven = false
        for argument in arguments {
            switch argument {
            case "--help", "-h":
                options.showHelp = true
            case _ where argument.hasPrefix("-"):
                throw UsageError(description: "unknown option \(argument)")
            case _ where sizeGiven:
                throw UsageError(description: "one size at most, not \(arguments.joined(separator: " "))")
            default:
                options.size = try size(argument)
                sizeGiven = true
            }
        }
        return options
    }

    /// `4194304`, `512K`, `4M`, `2G` or `1T` as a number of bytes.
    static func size(_ text: String) throws(UsageError) -> Int {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text)
        var unit = 1
        if let last = digits.last, let multiplier = units[Character(last.uppercased())] {
            unit = multiplier
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = Int(digits),
            case (let bytes, let overflow) = count.multipliedReportingOverflow(by: unit), !overflow,
            bytes <= maximumSize
        else {
            throw UsageError(
                description: "SIZE is a number of bytes with an optional K, M, G or T, at most 1T, not \(text)")
        }
        return bytes
    }
}
