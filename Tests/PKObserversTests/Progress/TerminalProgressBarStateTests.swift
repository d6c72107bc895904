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
