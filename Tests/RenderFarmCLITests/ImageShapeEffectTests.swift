import CairoKit
import Foundation
import Testing

/// The `image` and `shape` effects through the real binary: the same bytes however frames are drawn, the image
/// file in the fingerprint and the manifest, and bad files and path data refused at their place in the job.
@Suite("Image and shape effects")
struct ImageShapeEffectTests {
    /// A job with a rounded card (shape), a circle-cropped avatar (image), a dashed arc (shape path) and hearts
    /// moving over them, with `image` and `d` as given.
    static func job(image: String = "avatar.jpg", d: String = "M 20 70 a 30 30 0 0 1 60 0", frames: Int = 6) throws
        -> String
    {
        let job: [String: Any] = [
            "version": 1, "name": "badge", "canvas": ["width": 120, "height": 80, "scale": 2], "fps": 10,
            "duration": Double(frames) / 10, "output": ["dir": "out"], "seed": 3,
            "layers": [
                [
                    "effect": "shape",
                    "params": [
                        "kind": "roundedRect", "rect": ["x": 4, "y": 4, "width": 112, "height": 72], "radius": 12,
                        "fill": ["linear": [[4, 0], [116, 0]], "stops": [[0, "#1E1B4B"], [1, "#7C3AEDC0"]]],
                    ],
                ],
                [
                    "effect": "image",
                    "params": [
                        "file": image, "rect": ["x": 10, "y": 10, "width": 40, "height": 40], "fit": "cover",
                        "circle": true,
                    ],
                ],
                [
                    "effect": "shape",
                    "params": ["kind": "path", "d": d, "stroke": ["color": "#FBBF24", "width": 3, "dash": [4, 2]]],
                ],
                ["effect": "floating-heart", "params": ["emitter": [90, 70], "rate": 8, "size": 16, "lifetime": 1]],
            ],
        ]
        let data = try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// A job folder with the example avatar as `avatar.jpg`, the example badge as `verified.svg` and the job as
    /// `job.json`.
    static func folder(_ job: String) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for asset in ["avatar.jpg", "verified.svg"] {
            try FileManager.default.copyItem(
                at: Binary.packageRoot.appendingPathComponent("jobs/assets/" + asset),
                to: folder.url.appendingPathComponent(asset))
        }
        try folder.write(job, to: "job.json")
        return folder
    }

    // Rendering a folder's job.json and reading its frames' hashes: as the text effect's tests do.
    static func render(_ folder: TemporaryFolder, arguments: [String] = []) throws -> Binary.Result {
        try TextEffectTests.render(folder, arguments: arguments)
    }

    static func hashes(_ folder: TemporaryFolder) throws -> [String] { try TextEffectTests.hashes(folder) }

    @Test(
        "frames are byte-identical across -j 1, -j 2, --isolate and --shard K/N",
        arguments: ["avatar.jpg", "verified.svg"])
    func deterministic(image: String) throws {
        let job = try Self.job(image: image)
        var runs: [[String]] = []
        for arguments in [["-j", "1"], ["-j", "2"], ["-j", "2", "--isolate"]] {
            let folder = try Self.folder(job)
            _ = try Self.render(folder, arguments: arguments)
            runs.append(try Self.hashes(folder))
        }
        let sharded = try Self.folder(job)
        for index in 0..<3 { _ = try Self.render(sharded, arguments: ["--shard", "\(index)/3"]) }
        let merge = CLI.run(["merge", sharded.url.appendingPathComponent("out").path])
        #expect(merge.status == 0, "\(merge.stderr)")
        runs.append(try Self.hashes(sharded))
        #expect(runs[0].count == 6 && Set(runs[0]).count > 1)
        for run in runs.dropFirst() { #expect(run == runs[0]) }
    }

    @Test("the image is in the manifest with its sha256; replacing it (a PNG now) draws every frame again")
    func imageEdit() throws {
        let folder = try Self.folder(try Self.job())
        _ = try Self.render(folder)
        let out = folder.url.appendingPathComponent("out")
        let avatar = folder.url.appendingPathComponent("avatar.jpg")
        #expect(
            try InputFileTests.inputs(out).first { $0.file == "avatar.jpg" }?.sha256
                == sha256(try Data(contentsOf: avatar)))
        let before = try Self.hashes(folder)
        let again = try Self.render(folder)
        #expect((again.stdout + again.stderr).contains("0 frames rendered, 6 already done"), "\(again.stdout)")

        try FileManager.default.removeItem(at: avatar)
        try InputFileTests.writeSquare(avatar.path, size: 32, red: 0, green: 1, blue: 0)
        let redraw = try Self.render(folder)
        #expect(redraw.stdout.contains("6 frames rendered"), "\(redraw.stdout)")
        let after = try Self.hashes(folder)
        #expect(zip(before, after).allSatisfy { $0 != $1 })
        #expect(
            try InputFileTests.inputs(out).first { $0.file == "avatar.jpg" }?.sha256
                == sha256(try Data(contentsOf: avatar)))
        // The avatar's centre (30, 30) pt is the square's green at scale 2.
        let frame = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00000.png").path)
        let pixel = frame.pixel(x: 60, y: 60)
        #expect(pixel.r == 0 && pixel.g == 255 && pixel.b == 0 && pixel.a == 255, "\(pixel)")
    }

    @Test(
        "a damaged image and bad path data fail validate and render with exit 65 at their place; nothing is written",
        arguments: [
            (
                "truncated.jpg", "M 20 70 a 30 30 0 0 1 60 0",
                "layers[1].params.file: truncated.jpg is not a readable JPEG ("
            ),
            ("notes.txt", "M 20 70 a 30 30 0 0 1 60 0", "layers[1].params.file: notes.txt is not a PNG, JPEG or SVG"),
            (
                "avatar.jpg", "M 20 70 a 30 30 0 2 1 60 0",
                "layers[2].params.d: at character 19 (near \"…0 a 30 30 0 2 1 60 0\"): expected 0 or 1 (large-arc-flag of a)"
            ),
        ])
    func refused(image: String, d: String, message: String) throws {
        let folder = try Self.folder(try Self.job(image: image, d: d))
        let avatar = try Data(contentsOf: folder.url.appendingPathComponent("avatar.jpg"))
        try avatar.prefix(avatar.count / 2).write(to: folder.url.appendingPathComponent("truncated.jpg"))
        try folder.write("not a picture\n", to: "notes.txt")
        for command in ["validate", "render"] {
            let result = CLI.run(
                [command, folder.url.appendingPathComponent("job.json").path]
                    + (command == "render" ? ["--progress", "none"] : []))
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out").path))
    }

    @Test("renderfarm plugins lists both effects and their parameters")
    func documented() throws {
        for (id, parameters) in [
            ("image", ["file", "rect", "fit", "radius", "circle"]),
            ("shape", ["kind", "rect", "radius", "d", "fill", "fillRule", "stroke"]),
        ] {
            let result = CLI.run(["plugins", id])
            #expect(result.status == 0, "\(result.stderr)")
            for parameter in parameters { #expect(result.stdout.contains(parameter), "\(id): \(parameter)") }
        }
    }
}
