import Foundation
import Testing

/// `render --video` of several jobs (the variants of a job file): one video per variant, named by placeholders
/// (RenderCommand's help, the RenderFarm article VideoOutput). Each video decodes to the frames of that variant
/// rendered alone; a name that cannot work is refused before any video is written.
@Suite(
    "render --video with a file name per variant",
    .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed: apt-get install ffmpeg"))
struct VideoTemplateTests {
    static let job = Binary.packageRoot.appendingPathComponent("jobs/gift-deliverables.json").path
    static let small = ["--scale", "0.25", "--frames", "0-5", "--progress", "none", "-j", "2"]

    /// The batch's PNGs rendered (small) into FOLDER/pngs; returns that folder.
    static func renderBatch(in folder: TemporaryFolder) throws -> String {
        let pngs = folder.path + "/pngs"
        let render = CLI.run(["render", job, "--out", pngs] + small)
        try #require(render.status == 0, "\(render.stderr)")
        return pngs
    }

    @Test("one command makes every deliverable: footage mp4s and transparent webms, each its variant's frames")
    func everyVariant() throws {
        let folder = try TemporaryFolder()
        // The folder a name per variant goes in is made.
        let result = CLI.run(
            ["render", Self.job, "--video", folder.path + "/videos/{{variant}}.{{format}}"] + Self.small)
        #expect(result.status == 0, "\(result.stderr)")
        let videos = folder.path + "/videos"
        let names = try FileManager.default.contentsOfDirectory(atPath: videos).sorted()
        #expect(
            names == [
                "aiko-mp4.mp4", "aiko-webm.webm", "ben-mp4.mp4", "ben-webm.webm", "chloé-mp4.mp4", "chloé-webm.webm",
            ], "\(names)")
        for name in names {
            let probe = try Tools.probe(videos + "/" + name)
            #expect(probe["codec_name"] == (name.hasSuffix(".mp4") ? "h264" : "vp9"), "\(name): \(probe)")
            #expect(probe["nb_read_frames"] == "6", "\(name): \(probe)")
        }
        // Two variants rendered alone (--variants) decode to the same frames as theirs from the batch.
        var random = FuzzRandom(seed: 4_921)
        for name in random.sample(names, 2) {
            let variant = String(name.split(separator: ".")[0])
            let alone = folder.path + "/alone-" + name
            let single = CLI.run(["render", Self.job, "--variants", variant, "--video", alone] + Self.small)
            try #require(single.status == 0, "\(single.stderr)")
            let (format, decoder) = name.hasSuffix(".mp4") ? ("rgb24", nil as String?) : ("rgba", "libvpx-vp9")
            let batch = try Tools.decode(videos + "/" + name, pixelFormat: format, frames: 6, decoder: decoder)
            #expect(try Tools.decode(alone, pixelFormat: format, frames: 6, decoder: decoder) == batch, "\(name)")
        }
    }

    @Test("encode of a rendered batch: each variant into its folder, or into -o named per variant, as render --video")
    func encodeBatch() throws {
        let folder = try TemporaryFolder()
        let pngs = try Self.renderBatch(in: folder)
        let batch = pngs + "/gift-deliverables"
        let each = CLI.run(["encode", batch, "--progress", "none"])
        #expect(each.status == 0, "\(each.stderr)")
        let variants = try FileManager.default.contentsOfDirectory(atPath: batch).filter { !$0.hasSuffix(".json") }
        #expect(variants.count == 6)
        for variant in variants {
            #expect(
                FileManager.default.fileExists(atPath: "\(batch)/\(variant)/gift-deliverables_\(variant).mp4"),
                "\(variant)")
        }
        let named = CLI.run([
            "encode", batch, "-o", folder.path + "/encoded-{{variant}}.{{format}}", "--progress", "none",
        ])
        #expect(named.status == 0, "\(named.stderr)")
        let streamed = CLI.run(
            ["render", Self.job, "--video", folder.path + "/streamed-{{variant}}.{{format}}"] + Self.small)
        #expect(streamed.status == 0, "\(streamed.stderr)")
        for variant in variants {
            let ext = variant.hasSuffix("mp4") ? "mp4" : "webm"
            let (format, decoder) = ext == "mp4" ? ("rgb24", nil as String?) : ("rgba", "libvpx-vp9")
            let a = try Tools.decode(
                folder.path + "/encoded-\(variant).\(ext)", pixelFormat: format, frames: 6, decoder: decoder)
            let b = try Tools.decode(
                folder.path + "/streamed-\(variant).\(ext)", pixelFormat: format, frames: 6, decoder: decoder)
            #expect(a == b && !a.isEmpty, "\(variant): encode of its PNGs and render --video differ")
        }
        // One variant's folder alone: its manifest's variant fills the placeholders.
        let single = CLI.run(
            ["encode", batch + "/ben-webm", "-o", folder.path + "/single-{{sender}}.{{format}}", "--progress", "none"])
        #expect(single.status == 0, "\(single.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/single-ben.webm"))
        let sheet = CLI.run(["preview", batch + "/ben-webm", "-o", folder.path + "/sheet-{{name}}-{{variant}}.png"])
        #expect(sheet.status == 0, "\(sheet.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/sheet-gift-deliverables-ben-webm.png"))
        let refused = CLI.run(["encode", batch, "-o", folder.path + "/one.mp4"])
        #expect(
            refused.status == 64 && refused.stderr.contains("names one file for 6 jobs or variants"),
            "\(refused.stderr)")
    }

    @Test(
        "a name that does not tell the videos apart or cannot be filled is refused (64), and no video is written",
        arguments: [
            ("{{sender}}.mp4", "variant aiko-mp4 and variant aiko-webm would both write"),
            ("all.mp4", "names one file for 6 jobs or variants"),
            ("{{sendr}}-{{format}}.mp4", "{{sendr}} is not a value of"),
            ("{{variant}}.{{footage}}", "cannot tell the format of"),
        ])
    func refused(template: String, message: String) throws {
        let folder = try TemporaryFolder()
        let result = CLI.run(["render", Self.job, "--video", folder.path + "/" + template] + Self.small)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("a value that is no file name is refused; separate job files are named by {{name}}")
    func values() throws {
        let folder = try TemporaryFolder()
        try folder.write("id,who\n1,alice\n2,bob/eve\n", to: "who.csv")
        let layer = LayerCompositionTests.probe([0, 0, 10, 10], [1, 0, 0, 1])
        let job = { (name: String, variants: String) in
            #"{"name": "\#(name)", "canvas": {"width": 32, "height": 32, "scale": 1}, "fps": 10, "duration": 0.3, "layers": [\#(layer)]\#(variants)}"#
        }
        let batch = try folder.write(
            job("batch", #", "variants": {"rows": "who.csv", "name": "v{{id}}"}"#), to: "batch.json")
        let plugins = LayerCompositionTests.plugins
        let refused = CLI.run(
            ["render", batch, "--video", folder.path + "/{{who}}.mp4", "--progress", "none"] + plugins)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("{{who}} is \"bob/eve\" for variant v2"), "\(refused.stderr)")
        let first = try folder.write(job("first", ""), to: "first.json")
        let second = try folder.write(job("second", ""), to: "second.json")
        let out = folder.path + "/{{name}}.mp4"
        let both = CLI.run(["render", first, second, "--video", out, "--progress", "none"] + plugins)
        #expect(both.status == 0, "\(both.stderr)")
        for name in ["first", "second"] {
            #expect(FileManager.default.fileExists(atPath: folder.path + "/\(name).mp4"), "\(name).mp4")
        }
    }

    @Test("preview of a variants job or of its rendered batch: a sheet per variant, the same from the job and the PNGs")
    func previewSheets() throws {
        let folder = try TemporaryFolder()
        let pngs = try Self.renderBatch(in: folder)
        let fromJob = CLI.run(
            ["preview", Self.job, "-o", folder.path + "/job-{{variant}}.png", "--scale", "0.25", "--frames", "0-5"])
        #expect(fromJob.status == 0, "\(fromJob.stderr)")
        let fromPNGs = CLI.run(["preview", pngs + "/gift-deliverables", "-o", folder.path + "/pngs-{{variant}}.png"])
        #expect(fromPNGs.status == 0, "\(fromPNGs.stderr)")
        for variant in ["aiko-mp4", "aiko-webm", "ben-mp4", "ben-webm", "chloé-mp4", "chloé-webm"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/job-\(variant).png"))
            let b = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/pngs-\(variant).png"))
            #expect(a == b, "\(variant): the sheet of the job and of its PNGs differ")
        }
        let one = CLI.run(["preview", Self.job, "-o", folder.path + "/one.png"])
        #expect(one.status == 64 && one.stderr.contains("sheets/{{variant}}.png"), "\(one.stderr)")
    }
}
