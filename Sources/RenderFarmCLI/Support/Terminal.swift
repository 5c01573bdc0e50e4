import Foundation
import Synchronization

/// Where a command writes: results to `out`, progress and diagnostics to `err`. Tests capture
/// both by giving their own sinks.
public final class Terminal: Sendable {
    private let outSink: @Sendable (String) -> Void
    private let errSink: @Sendable (String) -> Void
    /// Whether standard error is a terminal (progress bars redraw only there).
    public let errIsTerminal: Bool
    private let widthSource: @Sendable () -> Int?

    public init(
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        errIsTerminal: Bool = false, columns: @escaping @Sendable () -> Int? = { nil }
    ) {
        outSink = out
        errSink = err
        self.errIsTerminal = errIsTerminal
        widthSource = columns
    }

    /// The process's standard output and error.
    public static let standard = Terminal(
        out: { text in write(text, to: STDOUT_FILENO) }, err: { text in write(text, to: STDERR_FILENO) },
        errIsTerminal: isatty(STDERR_FILENO) == 1, columns: standardErrorColumns)

    /// Writes all of `text` to `descriptor` with write(2). The CLI ignores SIGPIPE (`RenderFarmCLI.main`), so
    /// a reader that has gone shows as EPIPE: the process then ends at once, quietly, with
    /// `ExitCode.brokenPipe` (141, as if SIGPIPE had ended it). Results that cannot be written otherwise
    /// (a full disk) end it with `ExitCode.ioError`; a note that cannot be written is dropped.
    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
                continue
            }
            let error = errno
            if written < 0, error == EINTR { continue }
            if written < 0, error == EPIPE { _exit(ExitCode.brokenPipe.rawValue) }
            guard descriptor == STDOUT_FILENO else { return }
            write(
                "renderfarm: error: cannot write standard output: \(String(cString: strerror(error)))\n",
                to: STDERR_FILENO)
            _exit(ExitCode.ioError.rawValue)
        }
    }

    /// The width of the terminal behind standard error now (asked at every redraw, so a resized
    /// window is followed), else `COLUMNS`; nil when neither says.
    public var columns: Int? { widthSource() }

    private static let standardErrorColumns: @Sendable () -> Int? = {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Writes a line to standard output.
    public func print(_ line: String) { outSink(line + "\n") }

    /// Writes a line to standard error.
    public func note(_ line: String) { errSink(line + "\n") }

    /// Writes raw text (no newline) to standard error, for redrawn progress lines.
    public func noteRaw(_ text: String) { errSink(text) }

    /// `renderfarm: error: …` on standard error, one line per line of `message`; lines that start with a
    /// space continue the one before (an excerpt of a file) and are written as they are.
    public func error(_ message: String) {
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            note(line.hasPrefix(" ") ? String(line) : "renderfarm: error: \(line)")
        }
    }
}
