import FileInput
import Foundation

/// How a child process went: wall time, peak resident memory and exit status.
struct ChildRun {
    var seconds: Double
    /// The child's peak resident memory, in KiB (`ChildProcess.run`: through GNU time, else `ru_maxrss`).
    var peakKiB: Int
    var exitCode: Int32
    /// CPU time of the child, user and system (`ru_utime` + `ru_stime`), in seconds: steadier than `seconds`
    /// on a machine that others share.
    var cpuSeconds: Double = 0
}

/// Runs programs as child processes and measures them with `wait4`.
///
/// The peak RSS comes from GNU time (`/usr/bin/time -f %M`, Debian's `time`, which `make bench` installs), not
/// from `wait4`'s `ru_maxrss`: a child started with `posix_spawn` shares this process's memory until it
/// executes its program, and Linux carries that memory's high-water mark over into the child's `ru_maxrss`,
/// so every child would seem to use at least as much as the bench itself (56 MB for a `validate` that peaks at
/// 27 MB). GNU time forks its child from its own small process instead.
enum ChildProcess {
    static let gnuTime = "/usr/bin/time"

    /// Runs `arguments` (the first is the executable's path) with standard output and error
    /// sent to the given files (or discarded), and waits for it. `measuringMemory: false` starts it directly,
    /// without GNU time's fork and exec (a millisecond) in `seconds`; `peakKiB` is then `ru_maxrss`, a floor.
    static func run(
        _ arguments: [String], stdout: String? = nil, stderr: String? = nil,
        environment: [String: String] = [:], measuringMemory: Bool = true
    ) -> ChildRun {
        let memoryFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "renderfarm-bench-rss-\(getpid())"
        ).path
        let throughTime = measuringMemory && FileManager.default.isExecutableFile(atPath: gnuTime)
        var run = spawn(
            throughTime ? [gnuTime, "--quiet", "-f", "%M", "-o", memoryFile] + arguments : arguments,
            stdout: stdout, stderr: stderr, environment: environment)
        if throughTime {
            let text = (try? String(contentsOfFile: memoryFile, encoding: .utf8)) ?? ""
            run.peakKiB = text.split(separator: "\n").last.flatMap { Int($0) } ?? run.peakKiB
            try? FileManager.default.removeItem(atPath: memoryFile)
        }
        return run
    }

    private static func spawn(
        _ arguments: [String], stdout: String?, stderr: String?, environment: [String: String]
    ) -> ChildRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        // strdup'd C strings live until the child has been spawned, then are freed below.
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 else {
            return ChildRun(seconds: 0, peakKiB: 0, exitCode: 127)
        }
        var status: Int32 = 0
        var usage = rusage()
        _ = DescriptorIO.retrying { wait4(pid, &status, 0, &usage) }
        let elapsed = clock.now - start
        // WIFEXITED / WEXITSTATUS, which Swift does not import: low 7 bits 0 means a normal exit.
        let exitCode = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ChildRun(
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            peakKiB: Int(usage.ru_maxrss), exitCode: exitCode,
            cpuSeconds: Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6)
    }
}
