import Foundation
import Testing

/// The colours of RenderFarm's videos against ffmpeg's own conversion of the same PNGs (swscale, with
/// the preset's matrix, range and codec settings): both videos are measured against the PNGs, per
/// channel, colour where the frame is mostly opaque and alpha at the drawn pixels, and RenderFarm's
/// may lose at most 1 dB more than ffmpeg's. A wrong matrix (BT.601 for BT.709) or range costs 8 dB
/// or more in some channel.
@Suite("video colour", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct VideoColourTests {
    struct Case: Sendable, CustomStringConvertible {
        var preset: String
        var job: String
        var rate: Int
        var file: String
        /// How ffmpeg converts and encodes the PNGs itself: what `encode` of the preset must match.
        var reference: [String]
        /// Decoder forced for reading (libvpx keeps VP9's alpha plane).
        var decoder: String?
        var description: String { preset }
    }

    static let cases = [
        Case(
            preset: "mp4", job: "jobs/hearts-on-gradient.json", rate: 30, file: "video.mp4",
            reference: [
                "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                "-c:v", "libx264", "-preset", "medium", "-crf", "18", "-colorspace", "bt709", "-color_primaries",
                "bt709", "-color_trc", "bt709", "-color_range", "tv",
            ], decoder: nil),
        Case(
            preset: "webm-alpha", job: "jobs/live-hearts.json", rate: 60, file: "video.webm",
            reference: [
                "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2:color=black@0,format=yuva420p", "-c:v", "libvpx-vp9",
                "-pix_fmt", "yuva420p", "-b:v", "0", "-crf", "30", "-deadline", "good", "-cpu-used", "4",
            ], decoder: "libvpx-vp9"),
    ]

    /// The frames of `file`, cropped to the canvas (375 × 667), as RGBA bytes.
    static func decode(_ file: String, decoder: String?) throws -> [UInt8] {
        let forced = decoder.map { ["-c:v", $0] } ?? []
        let output = try Tools.run(
            Tools.find("ffmpeg") ?? "ffmpeg",
            ["-v", "error"] + forced + [
                "-i", file, "-vf", "format=rgba,crop=375:667:0:0", "-f", "rawvideo", "-pix_fmt", "rgba", "-",
            ])
        guard output.status == 0 else { throw ToolError(message: output.stderr) }
        return [UInt8](output.stdout)
    }

    @Test("encode's colours and alpha are as close to the PNGs as ffmpeg's own conversion", arguments: cases)
    func matchesFFmpeg(_ test: Case) throws {
        let folder = try TemporaryFolder()
        let pngs = folder.url.appendingPathComponent("pngs")
        let render = CLI.run(
            ["render", test.job, "--out", pngs.path, "--frames", "100-129", "--scale", "1", "--progress", "none"])
        try #require(render.status == 0, "\(render.stderr)")
        let ours = folder.url.appendingPathComponent(test.file).path
        let encode = CLI.run(["encode", pngs.path, "-o", ours, "--preset", test.preset, "--progress", "none"])
        try #require(encode.status == 0, "\(encode.stderr)")
        let input = ["-framerate", "\(test.rate)", "-start_number", "100", "-i", pngs.path + "/frame_%05d.png"]
        let theirs = folder.url.appendingPathComponent("reference-" + test.file).path
        let ffmpeg = try Tools.run(
            Tools.find("ffmpeg") ?? "ffmpeg", ["-v", "error"] + input + test.reference + [theirs])
        try #require(ffmpeg.status == 0, "\(ffmpeg.stderr)")

        let source = try Tools.run(
            Tools.find("ffmpeg") ?? "ffmpeg", ["-v", "error"] + input + ["-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        let png = [UInt8](source.stdout)
        let a = try Self.decode(ours, decoder: test.decoder)
        let b = try Self.decode(theirs, decoder: test.decoder)
        try #require(png.count == 30 * 375 * 667 * 4 && a.count == png.count && b.count == png.count)
        let pixels = 0..<(png.count / 4)
        // Colour where the PNG is mostly opaque (straight colour under little alpha is noise).
        let opaque = pixels.map { png[$0 * 4 + 3] >= 128 }
        // Alpha where something is drawn, in the PNG or either video.
        let drawn = pixels.map { png[$0 * 4 + 3] > 0 || a[$0 * 4 + 3] > 0 || b[$0 * 4 + 3] > 0 }
        let channels = test.decoder == nil ? 0..<3 : 0..<4
        for channel in channels {
            let mask = channel == 3 ? drawn : opaque
            let ours = Tools.psnr(a, png, channel: channel, mask: mask)
            let ffmpegs = Tools.psnr(b, png, channel: channel, mask: mask)
            let name = ["R", "G", "B", "A"][channel]
            report("video colour \(test.preset) \(name): \(ours) dB, ffmpeg's own \(ffmpegs) dB")
            #expect(ours >= ffmpegs - 1 && ours >= 25, "\(test.preset) \(name): \(ours) dB, ffmpeg's \(ffmpegs) dB")
        }
        #expect(opaque.filter { $0 }.count > 1000, "the frames should draw something opaque")
    }
}
