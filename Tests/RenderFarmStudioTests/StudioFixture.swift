import Foundation
import RenderFarm
import Testing

@testable import RenderFarmJobs
@testable import RenderFarmStudio

/// A studio server on loopback over a copy of `jobs/live-hearts.json` in a temporary root.
final class StudioFixture {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The build folder with the `renderfarm` executable and the plugin libraries: the test
    /// executable's own folder (`swift test` runs it from there), else the debug build.
    static let buildDirectory: URL = {
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let hasBinary = FileManager.default.isExecutableFile(atPath: running.appendingPathComponent("renderfarm").path)
        return hasBinary ? running : packageRoot.appendingPathComponent(".build/debug")
    }()

    let root: URL
    let jobFile: URL
    let server: StudioServer
    var client: RawHTTP { RawHTTP(port: port) }
    var port: Int { Int(URLComponents(string: server.url)?.port ?? 0) }

    /// A studio on a copy of `jobs/<job>` and of the `jobs/assets` files it names in `assets`.
    init(
        job: String = "live-hearts.json", assets: [String] = [], host: String = "127.0.0.1", token: String? = nil,
        statusInterval: Double = 0.2, pluginSearchPath: [String] = StudioFixture.pluginSearchPath,
        docsFolder: String? = nil
    ) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("rf-studio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("assets"), withIntermediateDirectories: true)
        jobFile = root.appendingPathComponent(job)
        try FileManager.default.copyItem(at: Self.packageRoot.appendingPathComponent("jobs/\(job)"), to: jobFile)
        for asset in assets {
            try FileManager.default.copyItem(
                at: Self.packageRoot.appendingPathComponent("jobs/assets/\(asset)"),
                to: root.appendingPathComponent("assets/\(asset)"))
        }
        server = try StudioServer(
            StudioOptions(
                jobFile: jobFile.path, host: host, token: token, pluginSearchPath: pluginSearchPath,
                statusInterval: statusInterval,
                render: RenderCommandLine(executable: Self.buildDirectory.appendingPathComponent("renderfarm").path) {
                    request in
                    [
                        ["render", request.jobFile, "--progress", "json"]
                            + (request.frames.map { ["--frames", $0] } ?? [])
                            + (request.video.map { ["--video", $0.file, "--preset", $0.preset] } ?? [])
                            + request.pluginFolders.flatMap { ["--plugin-path", $0] }
                    ]
                },
                docsFolder: docsFolder, historyFolder: root.appendingPathComponent("state/history").path))
    }

    static var pluginSearchPath: [String] { PluginCatalog.searchPath(extra: [buildDirectory.path]) }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    var jobText: String { (try? String(contentsOf: jobFile, encoding: .utf8)) ?? "" }

    /// Runs the `renderfarm` binary with `arguments`, killed after `seconds`.
    @discardableResult
    /// The frames of the first video stream of `video`, as ffprobe counts them by decoding.
    static func frameCount(of video: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", video,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func renderfarm(_ arguments: [String], seconds: Double = 120) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = buildDirectory.appendingPathComponent("renderfarm")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw RawHTTP.Failure(description: "renderfarm \(arguments.joined(separator: " ")) ran past \(seconds) s")
        }
        process.waitUntilExit()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }

    /// Polls `condition` every 10 ms until it holds or `seconds` pass.
    static func eventually(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(10_000)
        }
        return try condition()
    }
}
