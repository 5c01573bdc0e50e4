import CFaultReport
import Foundation

/// Runs code with file descriptor 1 pointing at a temporary file, to see whether a plugin prints.
///
/// Unsafe in the sense of global: it swaps the process's stdout for the duration of `body`, so
/// only `renderfarm plugin check` uses it, from one thread, while nothing else prints. The
/// descriptor is moved under the C `stdout` stream's lock (`rf_stdout_redirect`), as a copy of
/// EffectKit moves it to absorb Chipmunk's banner, so the two cannot interleave.
enum StdoutCapture {
    /// Flushes every C stream (`fflush(nil)`) before and after, so buffered output lands on the
    /// right side of the swap.
    /// `body`'s result and what was written to stdout meanwhile (nil when stdout could not be
    /// redirected; `body` still runs).
    static func run<T>(_ body: () -> T) -> (result: T, output: String?) {
        fflush(nil)
        var template = Array((NSTemporaryDirectory() + "/renderfarm-check-XXXXXX").utf8CString)
        let file = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard file >= 0 else { return (body(), nil) }
        // Unlinked at once: the descriptor keeps the file, and nothing is left behind when the process ends inside
        // `body` (a check run with `--sandbox off` ends at a hung frame).
        unlink(template)
        defer { close(file) }
        let saved = rf_stdout_redirect(file)
        guard saved >= 0 else { return (body(), nil) }
        let result = body()
        fflush(nil)
        rf_stdout_restore(saved)
        lseek(file, 0, SEEK_SET)
        let written = FileHandle(fileDescriptor: file, closeOnDealloc: false).readDataToEndOfFile()
        return (result, String(data: written, encoding: .utf8) ?? "")
    }
}
