import CairoKit
import Foundation
import StrictJSON
import Testing

/// Issue 45, point 8: a plugin finds the assets shipped beside its library through the folder the host writes
/// into `rf_plugin.plugin_dir` (EffectKit: `EffectContext.pluginDirectory`), and an asset it names through
/// `input_files` is one of the frames' inputs like any other.
@Suite("assets beside a plugin's library")
struct PluginFolderTests {
    /// The fixture `test-asset` copied into `folder/lib` beside an asset holding `color`, and reached through a
    /// link in `folder/plugins` (a plugin folder may hold links to libraries installed elsewhere).
    static func install(in folder: TemporaryFolder, color: String) throws -> (plugins: String, asset: String) {
        let library = Binary.testPluginDirectory + "/asset/librenderfarm-test-asset.so"
        try #require(FileManager.default.fileExists(atPath: library), "run `make test-plugin` to build the fixtures")
        let lib = folder.url.appendingPathComponent("lib")
        let plugins = folder.url.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: lib, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let copy = lib.appendingPathComponent("librenderfarm-test-asset.so")
        try FileManager.default.copyItem(atPath: library, toPath: copy.path)
        try FileManager.default.createSymbolicLink(
            at: plugins.appendingPathComponent("librenderfarm-test-asset.so"), withDestinationURL: copy)
        let asset = try folder.write(color + "\n", to: "lib/test-asset.color")
        return (plugins.path, asset)
    }

    static func job(in folder: TemporaryFolder) throws -> String {
        try folder.write(
            """
            {"version": 1, "name": "asset", "canvas": {"width": 16, "height": 16}, "fps": 10, "duration": 0.3,
             "output": {"dir": "out"}, "layers": [{"effect": "test-asset"}]}
            """, to: "job/job.json")
    }

    /// The colour of pixel (8, 8) of each of the job's three frames.
    static func colors(_ out: URL) throws -> [[Int]] {
        try (0..<3).map { index in
            let image = try ImageSurface(
                contentsOfPNG: out.appendingPathComponent(String(format: "frame_%05d.png", index)).path)
            let p = image.pixel(x: 8, y: 8)
            return [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
        }
    }

    @Test("the plugin reads its asset beside its real file; an edited asset redraws, in process and sandboxed")
    func assetBesideLibrary() throws {
        let folder = try TemporaryFolder()
        let (plugins, asset) = try Self.install(in: folder, color: "ff8000")
        let job = try Self.job(in: folder)
        let out = folder.url.appendingPathComponent("job/out")
        let render = CLI.run(["render", job, "--plugin-path", plugins, "--progress", "none"])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try Self.colors(out) == Array(repeating: [255, 128, 0, 255], count: 3))
        // The asset is an input of the layer: listed in the manifest with its path and content hash.
        let manifest = try #require(
            try JSONParser.parse(String(contentsOfFile: out.path + "/manifest.json", encoding: .utf8)).objectValue)
        let inputs = manifest["inputs"]?.arrayValue ?? []
        let realAsset = URL(fileURLWithPath: asset).resolvingSymlinksInPath().path
        #expect(inputs.compactMap { $0.objectValue?["file"]?.stringValue } == [realAsset], "\(inputs)")

        // The designer's palette changes: every frame is drawn again, and the reason names the file.
        try "0080ff\n".write(toFile: asset, atomically: true, encoding: .utf8)
        let again = CLI.run(["render", job, "--plugin-path", plugins, "--progress", "plain"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("3 because an input file changed (\(realAsset))"), "\(again.stderr)")
        #expect(try Self.colors(out) == Array(repeating: [0, 128, 255, 255], count: 3))

        // Sandboxed workers create the instance again and read the asset (named through input_files) the same way.
        let isolated = folder.url.appendingPathComponent("isolated")
        let sandboxed = CLI.run([
            "render", job, "--plugin-path", plugins, "--isolate", "--out", isolated.path, "--progress", "none",
        ])
        #expect(sandboxed.status == 0, "\(sandboxed.stderr)")
        for index in 0..<3 {
            let name = String(format: "frame_%05d.png", index)
            #expect(
                FileManager.default.contents(atPath: isolated.appendingPathComponent(name).path)
                    == FileManager.default.contents(atPath: out.appendingPathComponent(name).path), "\(name)")
        }

        // The conformance check loads it the same way, and its sandbox lets create read the named asset.
        let check = CLI.run(["plugin", "check", plugins + "/librenderfarm-test-asset.so"])
        #expect(check.status == 0, "\(check.stdout)")
    }

    @Test("without its asset, create fails naming the file where the host said the plugin lies")
    func missingAsset() throws {
        let folder = try TemporaryFolder()
        let (plugins, asset) = try Self.install(in: folder, color: "ff8000")
        try FileManager.default.removeItem(atPath: asset)
        let job = try Self.job(in: folder)
        let result = CLI.run(["validate", job, "--plugin-path", plugins])
        #expect(result.status == 65, "\(result.stderr)")
        let realLib = URL(fileURLWithPath: folder.path + "/lib").resolvingSymlinksInPath().path
        #expect(
            result.stderr.contains("cannot read a colour (RRGGBB) from \(realLib)/test-asset.color"), "\(result.stderr)"
        )
    }
}
