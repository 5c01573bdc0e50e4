import Foundation

/// Where `Terminal.standard` writes results: the process's standard output, moved out of the way of plugins.
///
/// A plugin runs inside the process, and anything it prints (a stray `printf`, a library's log line)
/// would land in the middle of a command's results (`renderfarm trace` JSON lines, `plugins --json`).
/// At its first use, before any plugin is loaded, this duplicates standard output onto a descriptor
/// of its own (close-on-exec, so no child inherits it) and points descriptor 1 at standard error:
/// from then on every plugin call, on any thread, writes its stdout to stderr, and only the
/// terminal writes results. Children started later (ffmpeg, sbatch) get their own pipes or null
/// device for output, and isolate workers already point their stdout at stderr.
enum ResultsOutput {
    /// The descriptor results go to; `STDOUT_FILENO` when it could not be moved (then nothing changed).
    static let descriptor: Int32 = {
        fflush(nil)
        let moved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 10)
        guard moved >= 0 else { return STDOUT_FILENO }
        guard dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            close(moved)
            return STDOUT_FILENO
        }
        return moved
    }()
}
