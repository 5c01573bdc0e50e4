import Foundation

/// External programs the hand-off tests use (ffmpeg, ffprobe, GNU time, python3).
enum Tools {
    /// The first executable named `name` on PATH.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Whether ffmpeg and ffprobe are installed (`make test` installs them; see README).
    static let hasFFmpeg = find("ffmpeg") != nil && find("ffprobe") != nil

    /// The Python that has `opentimelineio`: `RENDERFARM_OTIO_PYTHON` (`make otio-venv`'s virtual
    /// environment, which `make test` passes when it exists), else `python3` on PATH.
    static let otioPython: String? = {
        if let python = ProcessInfo.processInfo.environment["RENDERFARM_OTIO_PYTHON"], !python.isEmpty {
            return python
        }
        return find("python3")
    }()

    /// Whether the `opentimelineio` Python package can be imported.
    static let hasOpenTimelineIO: Bool = {
        guard let python = otioPython else { return false }
        return (try? run(python, ["-c", "import opentimelineio"]).status) == 0
    }()

    /// PSNR in dB of `channel` of two RGBA images (a byte a channel) over the pixels `mask` selects (every
    /// pixel without one); infinite when they are equal.
    static func psnr(_ a: some ContiguousBytes, _ b: some ContiguousBytes, channel: Int, mask: [Bool]? = nil) -> Double
    {
        var squares = 0.0
        var count = 0
        withBytes(a, b) { a, b, length in
            var pixel = 0
            while pixel < length / 4 {
                defer { pixel += 1 }
                if let mask, !mask[pixel] { continue }
                let difference = Double(a[pixel * 4 + channel]) - Double(b[pixel * 4 + channel])
                squares += difference * difference
                count += 1
            }
        }
        return psnr(squares: squares, count: count)
    }

    /// PSNR in dB of 8-bit values whose squared differences add up to `squares` over `count` values; infinite
    /// when they are equal (or none were compared).
    static func psnr(squares: Double, count: Int) -> Double {
        squares == 0 || count == 0 ? .infinity : 10 * log10(255 * 255 / (squares / Double(count)))
    }

    /// Calls `body` with the bytes of `a` and `b` and the shorter one's length, for loops over every byte of
    /// frames, which are megabytes: `while` loops over typed pointers, as subscripting `Data` or a raw buffer
    /// byte by byte goes through the generic standard library in a debug build (and takes a lock in a
    /// ThreadSanitizer build: a minute for 20 frames).
    static func withBytes(
        _ a: some ContiguousBytes, _ b: some ContiguousBytes,
        _ body: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int) -> Void
    ) {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                guard let first = a.baseAddress, let second = b.baseAddress else { return }
                body(
                    first.assumingMemoryBound(to: UInt8.self), second.assumingMemoryBound(to: UInt8.self),
                    min(a.count, b.count))
            }
        }
    }

    /// Whether this is CI (`CI=true`), where tests of optional tools run and fail instead of skipping.
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    struct Output {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Copies the executable `source` to `target` in a child process (`cp`), so that no thread of this process ever
    /// holds the copy open for writing. A process another test starts meanwhile inherits such a descriptor (until it
    /// execs, or for good when it was opened without O_CLOEXEC), and running the copy then fails with "Text file
    /// busy" (ETXTBSY): `SDKCommandTests.scaffoldHints` failed so in CI.
    static func copyExecutable(_ source: String, to target: String) throws {
        let copied = try run("/bin/cp", [source, target])
        guard copied.status == 0 else { throw ToolError(message: "cp \(source) \(target): \(copied.stderr)") }
    }

    /// Runs `executable` and collects its output (through files, so nothing blocks on a pipe); a
    /// program still running after `timeout` seconds is killed and the call throws.
    static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil, timeout: Double = 300)
        throws -> Output
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rf-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard process.waitOrKill(timeout: timeout) else {
            throw ToolError(message: "\(executable) \(arguments) still running after \(timeout) s: killed")
        }
        return Output(
            status: process.terminationStatus, stdout: (try? Data(contentsOf: out)) ?? Data(),
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// `ffprobe` of the first video stream: frames counted by decoding, rates, size, pixel format.
    static func probe(_ file: String) throws -> [String: String] {
        let output = try run(
            find("ffprobe") ?? "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,width,height,pix_fmt,r_frame_rate,avg_frame_rate,nb_read_frames,color_range,color_space,"
                    + "color_primaries,color_transfer", "-of",
                "default=noprint_wrappers=1", file,
            ])
        var fields: [String: String] = [:]
        for line in output.text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// Decoded frames as raw pixels (`pixelFormat` e.g. rgb24 or rgba), the first `frames` only.
    static func decode(_ file: String, pixelFormat: String, frames: Int, decoder: String? = nil) throws -> Data {
        let forced = decoder.map { ["-c:v", $0] } ?? []
        let output = try run(
            find("ffmpeg") ?? "ffmpeg",
            ["-v", "error"] + forced + [
                "-i", file, "-frames:v", "\(frames)", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-",
            ])
        guard output.status == 0 else { throw ToolError(message: output.stderr) }
        return output.stdout
    }

    /// A rational rate such as `60/1` as a number.
    static func rate(_ text: String?) -> Double {
        let parts = (text ?? "").split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 && parts[1] != 0 ? parts[0] / parts[1] : 0
    }
}

struct ToolError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension Process {
    /// Waits for the process to end; one still running after `timeout` seconds is killed (SIGKILL)
    /// and reaped, and the answer is false. Tests never wait on a hung program for ever.
    func waitOrKill(timeout: Double) -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while isRunning && ContinuousClock.now < deadline { usleep(5_000) }
        let ended = !isRunning
        if !ended { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
        return ended
    }
}
