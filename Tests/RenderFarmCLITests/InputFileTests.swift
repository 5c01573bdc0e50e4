import CairoKit
import Foundation
import Testing

/// Files a layer reads (a Lottie file, an item's image, an event log) decide its frames like the job
/// does: an edit to one draws the layer again, an untouched one keeps every frame, and the manifest
/// lists each with its sha256.
@Suite("Input files")
struct InputFileTests {
    /// The `inputs` of the folder's manifest, decoded with Foundation.
    struct Input: Decodable, Equatable {
        var layer: Int
        var file: String
        var sha256: String
    }

    static func inputs(_ folder: URL) throws -> [Input] {
        struct Listing: Decodable { var inputs: [Input] }
        let data = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
        return try JSONDecoder().decode(Listing.self, from: data).inputs
    }

    static func render(_ job: String) throws -> Binary.Result {
        // Plain progress says why frames are drawn again.
        let result = CLI.run(["render", job, "--progress", "plain"])
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    /// A `size` × `size` PNG of one colour.
    static func writeSquare(_ path: String, size: Int = 16, red: Double, green: Double, blue: Double) throws {
        let surface = try ImageSurface(width: size, height: size)
        let context = try DrawingContext(surface: surface)
        context.setSource(Color(red: red, green: green, blue: blue))
        context.paint()
        surface.flush()
        try surface.writePNG(to: path)
    }

    @Test("editing a Lottie file draws its layer again; an untouched one keeps every frame")
    func lottieEdit() throws {
        let folder = try TemporaryFolder()
        let lottie = try folder.write(LottieFixture.json, to: "anim.json")
        let job = try folder.write(try LottieFixture.job(), to: "job.json")
        _ = try Self.render(job)
        let out = folder.url.appendingPathComponent("out")
        #expect(try Self.inputs(out) == [Input(layer: 0, file: "anim.json", sha256: sha256(try Data(contentsOf: URL(fileURLWithPath: lottie))))])
        let before = try LottieEffectTests.frame(folder, 2)
        #expect(before.pixel(x: 20, y: 85) == (255, 255, 255, 255))

        let again = try Self.render(job)
        #expect((again.stdout + again.stderr).contains("0 frames rendered, 10 already done"), "\(again.stdout)")

        // The left square of the "pair" layer turns magenta.
        let edited = LottieFixture.json.replacingOccurrences(
                of: #"{"ty": "fl", "nm": "paint", "o": {"a": 0, "k": 100}, "c": {"a": 0, "k": [1, 1, 1, 1]}}"#,
                with: #"{"ty": "fl", "nm": "paint", "o": {"a": 0, "k": 100}, "c": {"a": 0, "k": [1, 0, 1, 1]}}"#)
        #expect(edited != LottieFixture.json)
        try edited.write(toFile: lottie, atomically: true, encoding: .utf8)
        let redraw = try Self.render(job)
        #expect((redraw.stdout + redraw.stderr).contains("10 because an input file changed (anim.json)"), "\(redraw.stdout)")
        #expect(try LottieEffectTests.frame(folder, 2).pixel(x: 20, y: 85) == (255, 0, 255, 255))
        #expect(try Self.inputs(out).map(\.sha256) == [sha256(try Data(contentsOf: URL(fileURLWithPath: lottie)))])
    }

    @Test("an item's image is an input: replacing the PNG redraws the frames with the new picture")
    func imageEdit() throws {
        let folder = try TemporaryFolder()
        let image = folder.url.appendingPathComponent("assets/item.png").path
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("assets"), withIntermediateDirectories: true)
        try Self.writeSquare(image, red: 1, green: 0, blue: 0)
        let job = try folder.write(
            """
            {"canvas": {"width": 60, "height": 60, "scale": 1}, "fps": 10, "duration": 0.5,
             "output": {"dir": "out"},
             "layers": [{"effect": "parabolic-drop", "params": {"shape": "image", "image": "assets/item.png",
               "from": [30, 30], "target": {"x": 20, "y": 20, "width": 20, "height": 20}, "size": 20, "count": 1}}]}
            """, to: "job.json")
        _ = try Self.render(job)
        let out = folder.url.appendingPathComponent("out")
        #expect(try Self.inputs(out) == [Input(layer: 0, file: "assets/item.png", sha256: sha256(try Data(contentsOf: URL(fileURLWithPath: image))))])
        let red = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00000.png").path)
        #expect(red.pixel(x: 30, y: 30) == (255, 0, 0, 255))

        try Self.writeSquare(image, red: 0, green: 0, blue: 1)
        // A run that draws only some frames (as one interrupted would) leaves the others to a later run,
        // which still names the file as the change: the folder's record keeps what those frames were drawn from.
        let some = CLI.run(["render", job, "--frames", "0-1", "--progress", "plain"])
        #expect(some.stderr.contains("2 because an input file changed (assets/item.png)"), "\(some.stderr)")
        let redraw = try Self.render(job)
        #expect((redraw.stdout + redraw.stderr).contains("3 because an input file changed (assets/item.png)"), "\(redraw.stderr)")
        let blue = try ImageSurface(contentsOfPNG: out.appendingPathComponent("frame_00000.png").path)
        #expect(blue.pixel(x: 30, y: 30) == (0, 0, 255, 255))
    }

    @Test("an edited item image redraws exactly the frames its item is drawn in, as a fresh render draws them")
    func imageEditIsExact() throws {
        let folder = try TemporaryFolder()
        let image = folder.url.appendingPathComponent("b.png").path
        try Self.writeSquare(image, size: 8, red: 1, green: 0, blue: 0)
        try folder.write("time,shape,image\n0.1,gift,\n1.0,coin,\n2.0,image,b.png\n", to: "events.csv")
        let job = try folder.write(
            """
            {"name": "drops", "canvas": {"width": 100, "height": 100, "scale": 1}, "fps": 10, "duration": 3,
             "output": {"dir": "out"},
             "layers": [{"effect": "parabolic-drop", "params": {"events": "events.csv", "lifetime": 0.5,
               "from": [50, 90], "target": {"x": 30, "y": 30, "width": 40, "height": 20}, "size": 20}}]}
            """, to: "job.json")
        _ = try Self.render(job)
        // The frames where the third item, the one drawn from b.png, is visible.
        let trace = CLI.run(["trace", job])
        let drawn = trace.stdout.split(separator: "\n").filter { line in
            let frame = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            let items = ((frame?["layers"] as? [[String: Any]])?.first?["items"] as? [[String: Any]]) ?? []
            return items.contains { $0["id"] as? Int == 2 && $0["visible"] as? Bool == true }
        }.count
        #expect(drawn == 5, "\(trace.stdout)")

        try Self.writeSquare(image, size: 8, red: 0, green: 0, blue: 1)
        let redraw = try Self.render(job)
        #expect(
            redraw.stdout.contains("drops: \(drawn) frames rendered, \(30 - drawn) already done (complete)"),
            "\(redraw.stdout)")
        let fresh = folder.url.appendingPathComponent("fresh")
        let clean = CLI.run(["render", job, "--out", fresh.path, "--progress", "none"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(try frameChecksums(folder.url.appendingPathComponent("out")) == frameChecksums(fresh))
    }

    @Test("an event log named as a file is listed with its sha256")
    func eventLog() throws {
        let folder = try TemporaryFolder()
        let log = try folder.write("time,color\n0.1,#FF0000\n", to: "likes.csv")
        let job = try folder.write(
            """
            {"canvas": {"width": 60, "height": 60, "scale": 1}, "fps": 10, "duration": 0.3,
             "output": {"dir": "out"},
             "layers": [{"effect": "floating-heart", "params": {"emitter": [30, 50], "events": "likes.csv"}}]}
            """, to: "job.json")
        _ = try Self.render(job)
        let out = folder.url.appendingPathComponent("out")
        #expect(try Self.inputs(out) == [Input(layer: 0, file: "likes.csv", sha256: sha256(try Data(contentsOf: URL(fileURLWithPath: log))))])
    }

    @Test("a job that reads no file lists none")
    func noInputs() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(SmallJob.text(), to: "job.json")
        let result = CLI.run(["render", job, "--progress", "none", "--out", folder.path + "/out"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.inputs(folder.url.appendingPathComponent("out")) == [])
    }
}
