import CairoKit
import Foundation
import Testing

/// A video without alpha shows what the PNGs show composited over the video's background (the RenderFarm
/// article VideoOutput): `render --video` and `encode` of the PNGs decode to the same pixels for every blend
/// mode, on a transparent, a semi-transparent and an opaque canvas. (`render --video` drew the layers over the
/// matte, so a blend mode mixed with the matte's colour where the PNGs mix with transparency: issue 43's
/// harness, findings section 6.)
@Suite("render --video with blend modes", .enabled(if: Tools.hasFFmpeg, "ffmpeg/ffprobe not installed"))
struct VideoBlendTests {
    static let backgrounds = ["#00000000", "#28C9B477", "#204060"]
    static let modes = BlendMode.allCases.map(\.rawValue)
    /// One cell per blend mode, `columns` to a row, `cell` points (and pixels) a side: even, so that no 2 × 2
    /// block of the video's chroma straddles two cells.
    static let cell = 22
    static let columns = 5
    static var rows: Int { (modes.count + columns - 1) / columns }
    static let frames = 3

    /// The cell of `modes[index]`: a backdrop in a colour that is not opaque over part of it, a shape with the
    /// blend mode over the backdrop and beside it, and a group with the blend mode holding another shape.
    static func layers(index: Int) -> String {
        let (x, y) = (Double(index % columns * cell), Double(index / columns * cell))
        let blend = modes[index]
        return """
            { "effect": "shape", "params": { "rect": {"x": \(x + 1), "y": \(y + 1), "width": 13, "height": 20},
              "fill": "#3366CCB0" } },
            { "effect": "shape", "blend": "\(blend)",
              "params": { "rect": {"x": \(x + 8.3), "y": \(y + 3.6), "width": 12.4, "height": 9.9},
                          "fill": "#E08020" } },
            { "blend": "\(blend)", "opacity": 0.9, "group": [ { "effect": "shape",
              "params": { "kind": "ellipse", "fill": "#F0E0408C",
                          "rect": {"x": \(x + 2.3), "y": \(y + 11.2), "width": 18.5, "height": 9.4} } } ] }
            """
    }

    static func job(background: String) -> String {
        """
        { "name": "blend-modes", "fps": 30, "duration": 0.1, "output": {"dir": "out"},
          "canvas": {"width": \(columns * cell), "height": \(rows * cell), "scale": 1, "background": "\(background)"},
          "layers": [ \(modes.indices.map(layers(index:)).joined(separator: ",\n")) ] }
        """
    }

    /// The blend modes whose cell differs between the decoded frames `a` and `b` (RGB, 3 bytes a pixel).
    static func differingModes(_ a: Data, _ b: Data) -> [String] {
        let (width, height) = (columns * cell, rows * cell)
        let frame = width * height * 3
        return modes.indices.filter { index in
            let (left, top) = (index % columns * cell, index / columns * cell)
            return (0..<frames).contains { number in
                (top..<(top + cell)).contains { row in
                    let start = number * frame + (row * width + left) * 3
                    return a[start..<(start + cell * 3)] != b[start..<(start + cell * 3)]
                }
            }
        }.map { modes[$0] }
    }

    @Test("mp4 (lossless): render --video decodes to the frames of encode of the PNGs", arguments: backgrounds)
    func directEqualsEncoded(background: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(Self.job(background: background), to: "job.json")
        // Lossless, so that the decoded pixels are the ones each route gave the encoder, cell by cell.
        let lossless = ["--crf", "0", "--progress", "none"]
        let direct = folder.url.appendingPathComponent("direct.mp4").path
        let video = CLI.run(["render", job, "--video", direct, "-j", "2"] + lossless)
        try #require(video.status == 0, "\(video.stderr)")
        let render = CLI.run(["render", job, "--progress", "none", "-j", "2"])
        try #require(render.status == 0, "\(render.stderr)")
        let encoded = folder.url.appendingPathComponent("encoded.mp4").path
        let encode = CLI.run(["encode", folder.url.appendingPathComponent("out").path, "-o", encoded] + lossless)
        try #require(encode.status == 0, "\(encode.stderr)")

        let a = try Tools.decode(direct, pixelFormat: "rgb24", frames: Self.frames)
        let b = try Tools.decode(encoded, pixelFormat: "rgb24", frames: Self.frames)
        let size = Self.frames * Self.columns * Self.rows * Self.cell * Self.cell * 3
        try #require(a.count == size && b.count == size, "decoded \(a.count) and \(b.count) bytes, not \(size)")
        let differing = Self.differingModes(a, b)
        #expect(differing.isEmpty, "on \(background), render --video and encode differ in the cells of \(differing)")
        // (Compared by checksum: a failed == of two Data values makes the test library diff them, for minutes.)
        #expect(sha256(a) == sha256(b), "on \(background), render --video and encode decode to other frames")
    }
}
