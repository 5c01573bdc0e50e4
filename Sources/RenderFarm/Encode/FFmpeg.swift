import Foundation

/// The installed `ffmpeg` program, run with Foundation's `Process`.
public struct FFmpeg: Sendable {
    /// Absolute path of the executable.
    public let executable: String

    /// What to install when ffmpeg is missing (Debian's package).
    public static let installHint = "apt-get install ffmpeg"

    public init(executable: String) {
        self.executable = executable
    }

    /// `RENDERFARM_FFMPEG` when set, else the first `ffmpeg` on `PATH`.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(EncodeError) -> FFmpeg
    {
        if let explicit = environment["RENDERFARM_FFMPEG"], !explicit.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: explicit) else {
                throw .ffmpegMissing(searched: explicit)
            }
            return FFmpeg(executable: explicit)
        }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = (String(folder) as NSString).appendingPathComponent("ffmpeg")
            if FileManager.default.isExecutableFile(atPath: candidate) { return FFmpeg(executable: candidate) }
        }
        throw .ffmpegMissing(searched: "PATH (\(path))")
    }

    /// Runs `command` in `directory` and reports the output frame count from ffmpeg's
    /// `-progress` lines as they come. Throws with the end of ffmpeg's error output on failure.
    public func run(_ command: FFmpegCommand, in directory: String, progress: (Int) -> Void) throws(EncodeError) {
        let process = try start(command, in: directory, feedsInput: false)
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
    /// (`FFmpegProcess.input`, a `FrameSocket`).
    public func start(_ command: FFmpegCommand, in directory: String, feedsInput: Bool) throws(EncodeError)
        -> FFmpegProcess
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = command.arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        // Fed from a pipe, the caller follows its own frames: progress lines are dropped.
        let progress = feedsInput ? nil : Pipe()
        let input = feedsInput ? try FrameSocket() : nil
        process.standardOutput = progress ?? FileHandle.nullDevice
        process.standardInput = input?.childEnd ?? FileHandle.nullDevice
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
            throw .failed(command: command.shellLine, status: -1, message: "cannot start \(executable): \(error)")
        }
        try? errorHandle.close()
        input?.closeChildEnd()
        return FFmpegProcess(process: process, command: command, input: input, progress: progress, errorLog: errorLog)
    }
}

/// A running ffmpeg.
public final class FFmpegProcess {
    let process: Process
    let command: FFmpegCommand
    /// Where frames go, when ffmpeg was started with `feedsInput`.
    let input: FrameSocket?
    private let progress: Pipe?
    private let errorLog: URL

    init(process: Process, command: FFmpegCommand, input: FrameSocket?, progress: Pipe?, errorLog: URL) {
        self.process = process
        self.command = command
        self.input = input
        self.progress = progress
        self.errorLog = errorLog
    }

    /// ffmpeg's standard output, where `-progress pipe:1` writes.
    var progressOutput: FileHandle? { progress?.fileHandleForReading }

    /// Closes standard input (end of frames), drains the progress pipe, waits for ffmpeg to exit,
    /// and throws with the end of its error output when it failed.
    public func finish() throws(EncodeError) {
        input?.close()
        _ = try? progress?.fileHandleForReading.readToEnd()
        process.waitUntilExit()
        let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: errorLog)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let tail = log.split(separator: "\n").suffix(12).joined(separator: "\n")
            throw .failed(
                command: command.shellLine, status: process.terminationStatus,
                message: tail.isEmpty ? "no error output" : tail)
        }
    }
}

/// Reads ffmpeg's `-progress` output (`key=value` lines, one block per update ending with
/// `progress=continue` or `progress=end`) and yields the frame count of each block.
public struct FFmpegProgressParser: Sendable {
    private var pending: [UInt8] = []
    private var frame: Int?

    public init() {}

    /// Feeds bytes; returns the frame counts of the blocks completed by them.
    public mutating func consume(_ bytes: some Sequence<UInt8>) -> [Int] {
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
