import Foundation
import Testing

/// The manifest's `ffmpeg` command runs when pasted into a shell in the output folder (<doc:OutputFolder>).
@Suite("The manifest's ffmpeg command")
struct ManifestCommandTests {
    @Test(
        "pasted into bash -c in the folder, it encodes the frames",
        .enabled(if: Tools.hasFFmpeg, "needs ffmpeg"),
        arguments: [
            // An opaque job (mp4, with the pad filter), and a frame set with a step (a glob, alpha webm).
            ("jobs/live-stream.json", "0-1", "live-stream.mp4"), ("jobs/live-hearts.json", "0-4:2", "live-hearts.webm"),
        ])
    func pastedIntoBash(job: String, frames: String, video: String) throws {
        let folder = try TemporaryFolder()
        let render = CLI.run([
            "render", job, "--frames", frames, "--scale", "0.25", "--out", folder.path, "--progress", "none",
        ])
        try #require(render.status == 0, "\(render.stderr)")
        let manifest = try Manifest(folder: folder.url)
        #expect(manifest.ffmpeg.hasSuffix(" " + video), "\(manifest.ffmpeg)")
        let bash = try Tools.run("/bin/bash", ["-c", manifest.ffmpeg], in: folder.url)
        #expect(bash.status == 0, "\(manifest.ffmpeg)\n\(bash.stderr)")
        let size =
            try FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent(video).path)[
                .size] as? Int
        #expect((size ?? 0) > 0)
    }
}
