import PKCore

/// How a ``TerminalProgressBar`` writes one progress value: a bar redrawn in place on a terminal, or a plain line
/// for a log.
struct ProgressLine {
    let title: String
    let barWidth: Int

    /// The title is shown as ``printable(_:)`` makes it: it is the caller's text, perhaps taken from user data.
    init(title: String, barWidth: Int) {
        self.title = Self.printable(title)
        self.barWidth = barWidth
    }

    /// `title [#########.........]  45% (9/20) message`, cut to `columns` characters (at least the title and the
    /// percentage are kept where they fit).
    func bar(_ progress: ProcedureProgress, columns: Int) -> String {
        let filled = Swift.min(barWidth, Int((progress.fractionCompleted * Double(barWidth)).rounded(.down)))
        var line = title.isEmpty ? "" : title + " "
        line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "] "
        line += Self.percent(progress)
        if progress.hasUnits { line += " (\(progress.completedUnitCount)/\(progress.totalUnitCount))" }
        if let message = progress.message, !message.isEmpty { line += " " + Self.printable(message) }
        return Self.cut(line, to: columns)
    }

    /// `title: 45% (9/20) message`, for output that is not a terminal.
    func plain(_ progress: ProcedureProgress) -> String {
        var line = title.isEmpty ? "" : title + ": "
        line += Self.percent(progress)
        if progress.hasUnits { line += " (\(progress.completedUnitCount)/\(progress.totalUnitCount))" }
        if let message = progress.message, !message.isEmpty { line += " " + Self.printable(message) }
        return line
    }

    /// The whole percentage, right-aligned in four characters.
    static func percent(_ progress: ProcedureProgress) -> String {
        let value = String(Int((progress.fractionCompleted * 100).rounded(.down)))
        return String(repeating: " ", count: Swift.max(0, 3 - value.count)) + value + "%"
    }

    /// Control characters would break the line or drive the terminal: shown as spaces. That is C0 (newlines,
    /// ESC), DEL, and C1 (U+0080–U+009F: U+009B is a one-character CSI on xterm and VTE terminals, U+009D an OSC,
    /// so a message could otherwise still clear the screen or set the window's title).
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? " " : $0 }))
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// At most `columns` characters (one column is left free, so the cursor never wraps to the next line).
    static func cut(_ line: String, to columns: Int) -> String {
        let room = Swift.max(1, columns - 1)
        return line.count <= room ? line : String(line.prefix(room))
    }
}
