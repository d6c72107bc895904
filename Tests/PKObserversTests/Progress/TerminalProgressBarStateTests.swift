import PKCore
import Testing

@testable import PKObservers

/// When and what the terminal progress bar draws, decided without a terminal or a clock.
struct TerminalProgressBarStateTests {

    static func progress(_ fraction: Double, _ message: String? = nil, finished: Bool = false) -> ProcedureProgress {
        ProcedureProgress(fractionCompleted: fraction, message: message, isFinished: finished)
    }

    static func terminal(columns: Int = 80) -> TerminalProgressBarState {
        TerminalProgressBarState(
            isTerminal: true, interval: 0.1, line: ProgressLine(title: "Work", barWidth: 10), columns: columns)
    }

    @Test func aTerminalRedrawsInPlaceAndClearsTheRestOfTheLine() {
        var state = Self.terminal()
        #expect(state.update(Self.progress(0.5), at: 0) == .write("\rWork [#####.....]  50%\u{1B}[K"))
    }

    @Test func drawingsCloserThanTheIntervalWaitAndTakeTheLatestValue() {
        var state = Self.terminal()
        _ = state.update(Self.progress(0.1), at: 0)
        #expect(state.update(Self.progress(0.2), at: 0.02) == .writeAndComeBack("", at: 0.1))
        #expect(state.update(Self.progress(0.3), at: 0.05) == .none, "one pending drawing at most")
        #expect(state.due(at: 0.1) == .write("\rWork [###.......]  30%\u{1B}[K"))
        #expect(state.due(at: 0.2) == .none)
    }

    @Test func anUnchangedLineIsNotRedrawn() {
        var state = Self.terminal()
        _ = state.update(Self.progress(0.501), at: 0)
        #expect(state.update(Self.progress(0.502), at: 1) == .write(""))
    }

    @Test func theFinishedValueIsDrawnAtOnceWithANewlineAndEndsTheBar() {
        var state = Self.terminal()
        _ = state.update(Self.progress(0.1), at: 0)
        #expect(
            state.update(Self.progress(1, finished: true), at: 0.01) == .write("\rWork [##########] 100%\u{1B}[K\n"))
        #expect(state.isEnded)
        #expect(state.update(Self.progress(0.5), at: 1) == .none)
        #expect(state.end(at: 2) == .none)
    }

    @Test func theLineIsCutToTheTerminalsWidth() {
        var state = Self.terminal(columns: 20)
        guard case .write(let text) = state.update(Self.progress(0.5, "a long message"), at: 0) else {
            Issue.record("nothing drawn")
            return
        }
        let visible = text.dropFirst().dropLast(3)  // "\r" ... "\u{1B}[K"
        #expect(visible.count == 19)
    }

    @Test func controlCharactersInAMessageCannotBreakTheLine() {
        var state = Self.terminal()
        guard case .write(let text) = state.update(Self.progress(0.5, "one\ntwo\u{1B}[2J"), at: 0) else {
            Issue.record("nothing drawn")
            return
        }
        #expect(!text.dropFirst().contains("\n"))
        #expect(text.filter { $0 == "\u{1B}" }.count == 1, "only the bar's own erase sequence")
    }

    @Test func c1ControlsAndTheTitleCannotDriveTheTerminal() {
        // U+009B is a one-character CSI on xterm and VTE terminals ("\u{9B}2J" clears the screen), U+009D an OSC
        // (it sets the window's title); the title is the caller's text and may be user data too.
        var state = TerminalProgressBarState(
            isTerminal: true, interval: 0.1, line: ProgressLine(title: "Job \u{1B}[2J\u{9B}1m", barWidth: 10),
            columns: 200)
        guard case .write(let text) = state.update(Self.progress(0.5, "a\u{9B}2Jb\u{9D}0;owned\u{07}c\u{85}d"), at: 0)
        else {
            Issue.record("nothing drawn")
            return
        }
        let controls = text.unicodeScalars.filter { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        #expect(controls.map(\.value) == [0x0D, 0x1B], "only the bar's own carriage return and erase sequence")
        #expect(text.contains("Job  [2J 1m ["))
        #expect(text.contains("a 2Jb 0;owned c d"))
        #expect(ProgressLine(title: "Plain", barWidth: 1).plain(Self.progress(0, "x\u{9B}y")) == "Plain:   0% x y")
    }

    @Test func aClockSteppedBackDrawsAtOnceInsteadOfWaitingForTheTimeItLeft() {
        var state = Self.terminal()
        _ = state.update(Self.progress(0.1), at: 3600)
        #expect(state.update(Self.progress(0.2), at: 3600.05) == .writeAndComeBack("", at: 3600.1))
        _ = state.due(at: 3600.1)
        // The clock steps back an hour: the next change is drawn now, not an hour later.
        #expect(state.update(Self.progress(0.4), at: 0.5) == .write("\rWork [####......]  40%\u{1B}[K"))
        // And the interval counts from the new time.
        #expect(state.update(Self.progress(0.5), at: 0.55) == .writeAndComeBack("", at: 0.6))
    }

    @Test func plainOutputWritesALinePerTenthAndOneAtTheEnd() {
        var state = TerminalProgressBarState(
            isTerminal: false, interval: 0.1, line: ProgressLine(title: "Work", barWidth: 10), columns: .max)
        var written = ""
        for step in 0...20 {
            if case .write(let text) = state.update(Self.progress(Double(step) / 40), at: Double(step)) {
                written += text
            }
        }
        if case .write(let text) = state.end(at: 100) { written += text }
        #expect(written == "Work:   0%\nWork:  10%\nWork:  20%\nWork:  30%\nWork:  40%\nWork:  50%\nWork:  50%\n")
    }
}
