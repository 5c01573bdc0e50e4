import Dispatch
import FileInput
import Foundation
import Locking
import RenderFarmOutput

/// The installed `ffmpeg` program, run with Foundation's `Process`, and the `ffprobe` beside it,
/// which checks every video before it takes its final name (`EncodedVideo`).
package struct FFmpeg: Sendable {
    /// Absolute path of the executable.
    package let executable: String
    /// Absolute path of `ffprobe`; nil when none was found (encodes then fail with exit 69).
    package let probe: String?
    /// Where `probe` was looked for, for the message when it is missing.
    package let probeSearched: String

    /// What to install when ffmpeg is missing (Debian's package, which has ffprobe too).
    package static let installHint = "apt-get install ffmpeg"

    package init(executable: String, probe: String?, probeSearched: String = "") {
        self.executable = executable
        self.probe = probe
        self.probeSearched = probeSearched
    }

    /// `RENDERFARM_FFMPEG` when set, else the first `ffmpeg` on `PATH`; ffprobe is
    /// `RENDERFARM_FFPROBE` when set, else the one beside ffmpeg, else the first on `PATH`.
    package static func locate(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(EncodeError) -> FFmpeg
    {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let executable: String
        if let explicit = environment["RENDERFARM_FFMPEG"], !explicit.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: explicit) else {
                throw .ffmpegMissing(searched: explicit)
            }
            executable = explicit
        } else {
            guard let found = find("ffmpeg", in: path) else { throw .ffmpegMissing(searched: "PATH (\(path))") }
            executable = found
        }
        if let explicit = environment["RENDERFARM_FFPROBE"], !explicit.isEmpty {
            let usable = FileManager.default.isExecutableFile(atPath: explicit)
            return FFmpeg(executable: executable, probe: usable ? explicit : nil, probeSearched: explicit)
        }
        let folder = (executable as NSString).deletingLastPathComponent
        return FFmpeg(
            executable: executable, probe: find("ffprobe", in: folder) ?? find("ffprobe", in: path),
            probeSearched: "\(folder) and PATH (\(path))")
    }

    /// The first executable `name` in the `:`-separated `folders`.
    private static func find(_ name: String, in folders: String) -> String? {
        for folder in folders.split(separator: ":") where !folder.isEmpty {
            let candidate = (String(folder) as NSString).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `command` in `directory` and reports the output frame count from ffmpeg's
    /// `-progress` lines as they come. Throws with the end of ffmpeg's error output on failure,
    /// and with an I/O error on `output` (the final name of the file it writes) when its error
    /// output says writing failed, whatever its exit status. `stop` ends ffmpeg early.
    package func run(
        _ command: FFmpegCommand, in directory: String, output: String? = nil, stop: StopSignal? = nil,
        progress: (Int) -> Void
    ) throws(EncodeError) {
        let process = try start(command, in: directory, feedsInput: false, output: output, stop: stop)
        guard let reader = process.progressOutput else { return try process.finish() }
        var parser = FFmpegProgressParser()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            for frame in parser.consume(chunk) { progress(frame) }
        }
        try process.finish()
    }

    /// Starts ffmpeg; with `feedsInput`, its standard input is a socket the caller sends frames to
    /// (`FFmpegProcess.input`, a `FrameSocket`). `output` is the final name of the file ffmpeg
    /// writes, named by errors; once `stop` is set, ffmpeg is killed.
    package func start(
        _ command: FFmpegCommand, in directory: String, feedsInput: Bool, output: String? = nil,
        stop: StopSignal? = nil, reading file: InputFile? = nil
    ) throws(EncodeError) -> FFmpegProcess {
        try launch(
            executable, command, in: directory, feedsInput: feedsInput, output: output, stop: stop, reading: file)
    }

    /// Starts `program` (ffmpeg or ffprobe) with `command`'s arguments; its standard input is `file`
    /// when given (the command names it `/dev/stdin`), else the frame socket with `feedsInput`.
    package func launch(
        _ program: String, _ command: FFmpegCommand, in directory: String, feedsInput: Bool, output: String?,
        stop: StopSignal?, reading file: InputFile? = nil
    ) throws(EncodeError) -> FFmpegProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = command.arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        // Fed from a pipe, the caller follows its own frames: progress lines are dropped.
        let progress = feedsInput ? nil : Pipe()
        let input = feedsInput ? try FrameSocket() : nil
        process.standardOutput = progress ?? FileHandle.nullDevice
        process.standardInput =
            file.map { FileHandle(fileDescriptor: $0.descriptor, closeOnDealloc: false) } ?? input?.childEnd
            ?? FileHandle.nullDevice
        // Errors go to a file, so a chatty ffmpeg can never block on a full pipe.
        let errorLog = FileManager.default.temporaryDirectory
            .appendingPathComponent("renderfarm-ffmpeg-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log")
        guard FileManager.default.createFile(atPath: errorLog.path, contents: nil),
            let errorHandle = try? FileHandle(forWritingTo: errorLog)
        else {
            throw .failed(command: command.shellLine, status: -1, message: "cannot create \(errorLog.path)")
        }
        process.standardError = errorHandle
        do {
            try process.run()
        } catch {
            try? errorHandle.close()
            try? FileManager.default.removeItem(at: errorLog)
            throw .failed(command: command.shellLine, status: -1, message: "cannot start \(program): \(error)")
        }
        try? errorHandle.close()
        input?.closeChildEnd()
        return FFmpegProcess(
            process: process, command: command, input: input, progress: progress, errorLog: errorLog, output: output,
            stop: stop)
    }
}

/// A running ffmpeg.
package final class FFmpegProcess {
    package let process: Process
    package let command: FFmpegCommand
    /// Where frames go, when ffmpeg was started with `feedsInput`.
    package let input: FrameSocket?
    private let progress: Pipe?
    private let errorLog: URL
    /// The final name of the file ffmpeg writes, for errors.
    private let output: String?
    /// Kills ffmpeg once the stop signal is set; cancelled when ffmpeg has exited.
    private let stopWatch: (any DispatchSourceTimer)?

    package init(
        process: Process, command: FFmpegCommand, input: FrameSocket?, progress: Pipe?, errorLog: URL,
        output: String?, stop: StopSignal?
    ) {
        self.process = process
        self.command = command
        self.input = input
        self.progress = progress
        self.errorLog = errorLog
        self.output = output
        stopWatch = stop.map { stop in
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now(), repeating: .milliseconds(Self.stopPollMilliseconds))
            timer.setEventHandler { [process] in
                guard stop.isStopped, process.isRunning else { return }
                timer.cancel()
                // SIGKILL: ffmpeg inherits the signal mask of the thread that started it, and a launcher
                // that blocks SIGTERM (a test runner's worker thread, some CI agents) would leave
                // SIGTERM pending for ever. What ffmpeg wrote is discarded by the caller either way.
                kill(process.processIdentifier, SIGKILL)
            }
            timer.resume()
            return timer
        }
    }

    deinit { stopWatch?.cancel() }

    /// How often a stop signal is looked at: the delay between Ctrl-C and ffmpeg being killed.
    package static let stopPollMilliseconds = 20

    /// ffmpeg's standard output, where `-progress pipe:1` writes.
    package var progressOutput: FileHandle? { progress?.fileHandleForReading }

    /// How ffmpeg ended, and what it wrote to its standard error.
    package struct Ending {
        package var status: Int32
        var exited: Bool
        package var log: String
        package var succeeded: Bool { exited && status == 0 }
    }

    /// Closes standard input (end of frames), drains the progress pipe and waits for the process.
    package func wait() -> Ending {
        input?.close()
        _ = try? progress?.fileHandleForReading.readToEnd()
        process.waitUntilExit()
        stopWatch?.cancel()
        let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: errorLog)
        return Ending(status: process.terminationStatus, exited: process.terminationReason == .exit, log: log)
    }

    /// Waits for ffmpeg (see `wait()`) and throws when it failed: an I/O error on the output when
    /// its error output says writing it failed (Debian's ffmpeg 5.1 exits 0 after "Error writing
    /// trailer of …: No space left on device"), else ffmpeg's own error when it did not exit 0.
    package func finish() throws(EncodeError) {
        let ending = wait()
        if let output, let error = FFmpegLog.writeError(in: ending.log, output: output) { throw .output(error) }
        guard ending.succeeded else {
            let tail = ending.log.split(separator: "\n").suffix(12).joined(separator: "\n")
            throw .failed(
                command: command.shellLine, status: ending.status, message: tail.isEmpty ? "no error output" : tail)
        }
    }
}

/// Reads ffmpeg's `-progress` output (`key=value` lines, one block per update ending with
/// `progress=continue` or `progress=end`) and yields the frame count of each block.
package struct FFmpegProgressParser: Sendable {
    private var pending: [UInt8] = []
    private var frame: Int?

    package init() {}

    /// Feeds bytes; returns the frame counts of the blocks completed by them.
    package mutating func consume(_ bytes: some Sequence<UInt8>) -> [Int] {
        var reported: [Int] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                if pending.count < 4096 { pending.append(byte) }
                continue
            }
            let line = String(decoding: pending, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            pending.removeAll(keepingCapacity: true)
            if line.hasPrefix("frame="), let value = Int(line.dropFirst(6)) {
                frame = value
            } else if line.hasPrefix("progress="), let value = frame {
                reported.append(value)
            }
        }
        return reported
    }
}
