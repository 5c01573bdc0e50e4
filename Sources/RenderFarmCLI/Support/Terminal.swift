import FileInput
import Foundation
import RenderFarm
import RenderFarmOutput
import Synchronization

/// Where a command writes: results to `out`, progress and diagnostics to `err`. Tests capture
/// both by giving their own sinks.
package final class Terminal: Sendable {
    private let outSink: @Sendable (String) -> Void
    private let errSink: @Sendable (String) -> Void
    /// Whether standard error is a terminal (progress bars redraw only there).
    package let errIsTerminal: Bool
    private let widthSource: @Sendable () -> Int?

    package init(
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        errIsTerminal: Bool = false, columns: @escaping @Sendable () -> Int? = { nil }
    ) {
        outSink = out
        errSink = err
        self.errIsTerminal = errIsTerminal
        widthSource = columns
    }

    /// The process's standard output (moved away from plugins' output, see `ResultsOutput`) and error.
    package static let standard = Terminal(
        out: { text in write(text, to: ResultsOutput.descriptor) }, err: { text in write(text, to: STDERR_FILENO) },
        errIsTerminal: isatty(STDERR_FILENO) == 1, columns: standardErrorColumns)

    /// Writes all of `text` to `descriptor` with write(2). The CLI ignores SIGPIPE (`RenderFarmCLI.main`), so
    /// a reader that has gone shows as EPIPE: the process then ends at once, quietly, with
    /// `ExitCode.brokenPipe` (141, as if SIGPIPE had ended it). Results that cannot be written otherwise
    /// (a full disk) end it with `ExitCode.ioError`; a note that cannot be written is dropped.
    private static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        guard let error = bytes.withUnsafeBytes({ DescriptorIO.writeAll($0, to: descriptor) }) else { return }
        if error == EPIPE { _exit(ExitCode.brokenPipe.rawValue) }
        guard descriptor != STDERR_FILENO else { return }
        write(
            "renderfarm: error: cannot write standard output: \(String(cString: strerror(error)))\n", to: STDERR_FILENO)
        _exit(ExitCode.ioError.rawValue)
    }

    /// The width of the terminal behind standard error now (asked at every redraw, so a resized
    /// window is followed), else `COLUMNS`; nil when neither says.
    package var columns: Int? { widthSource() }

    private static let standardErrorColumns: @Sendable () -> Int? = {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Writes a line to standard output, control characters escaped (`escaped`).
    package func print(_ line: String) { outSink(Self.escaped(line) + "\n") }

    /// Writes a line to standard error, control characters escaped (`escaped`).
    package func note(_ line: String) { errSink(Self.escaped(line) + "\n") }

    /// Writes raw text (no newline) to standard error, for redrawn progress lines: the caller's own
    /// control sequences pass, so user data in `text` must be `escaped` first.
    package func noteRaw(_ text: String) { errSink(text) }

    /// `text` with every control character but line feed and tab written as an escape (`\r`, `\x1B`,
    /// `\u0085`): job names, paths and plugin messages reach the terminal as text, never as a carriage
    /// return, a colour or a cursor move. The one place user data is made safe for a terminal; `print`,
    /// `note` and `error` apply it to everything they write.
    package static func escaped(_ text: String) -> String {
        let isEscaped = { (scalar: Unicode.Scalar) in scalar != "\n" && scalar != "\t" && ShellWord.isControl(scalar) }
        // Fast path for long outputs (`trace`): C0 controls, DEL, and 0xC2, the lead byte of the C1 controls.
        let suspect = text.utf8.contains { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F || $0 == 0xC2 }
        guard suspect, text.unicodeScalars.contains(where: isEscaped) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isEscaped(scalar) else {
                result.append(scalar)
                continue
            }
            result.append(contentsOf: ShellWord.escape(scalar).unicodeScalars)
        }
        return String(result)
    }

    /// `renderfarm: error: …` on standard error, one line per line of `message`; lines that start with a
    /// space continue the one before (an excerpt of a file) and are written as they are.
    package func error(_ message: String) {
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            note(line.hasPrefix(" ") ? String(line) : "renderfarm: error: \(line)")
        }
    }
}
