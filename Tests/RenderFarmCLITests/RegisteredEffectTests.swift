import CairoKit
import EffectKit
import Foundation
import RenderFarmJobs
import RenderFarmTestSupport
import Testing

/// A Swift effect defined in this test bundle: a 10 × 10 pt square of `color` whose left edge is
/// at x = 10 × the frame's index. Registered, not loaded: no library, no `dlopen`.
private struct MarchingSquare: Effect {
    static let descriptor = EffectDescriptor(
        id: "test-marching-square", identifier: "org.renderfarm.test.marching-square", version: "1.0.0",
        summary: "A square that steps 10 pt right per frame",
        parameters: [ParameterSpec("color", .color, default: "#FF0000", doc: "the square's colour")])

    let color: Color

    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {
        color = try parameters.color("color")
    }

    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {
        context.setSource(color)
        context.rectangle(x: Double(frame.index) * 10, y: 0, width: 10, height: 10)
        context.fill()
    }
}

/// Another type that claims the same id.
private struct Impostor: Effect {
    static let descriptor = EffectDescriptor(
        id: MarchingSquare.descriptor.id, identifier: "org.renderfarm.test.impostor", version: "1.0.0",
        summary: "Takes a registered id", parameters: [])
    init(parameters: EffectParameters, context: EffectContext) throws(EffectError) {}
    func render(in context: DrawingContext, at frame: FrameTime) throws(EffectError) {}
}

/// The engine seam of issue 26: a Swift `Effect` registered in the process renders through the
/// whole engine (plan, lock, journal, manifest) like a library's, and is identified by the program.
@Suite("Effects registered in process, without a library")
struct RegisteredEffectTests {
    @Test("a registered effect renders its frames, is listed and fingerprinted by the program that holds it")
    func rendersInProcess() throws {
        let plugin = try PluginCatalog.register(MarchingSquare.self)
        #expect(try PluginCatalog.register(MarchingSquare.self) === plugin, "registering twice is one plugin")
        #expect(plugin.info.path == PluginCatalog.executablePath())

        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"""
            {"duration": 4, "fps": 1, "seed": 1, "canvas": {"width": 40, "height": 10, "scale": 1},
             "output": {"dir": "out"},
             "layers": [{"effect": "test-marching-square", "params": {"color": "#00FF00"}}]}
            """#, to: "job.json")
        let out = folder.url.appendingPathComponent("out")
        let first = CLI.run(["render", job, "--progress", "none", "-j", "2"])
        #expect(first.status == 0, "\(first.stderr)")
        for index in 0..<4 {
            let image = try LayerCompositionTests.frame(out, index)
            for x in stride(from: 5, to: 40, by: 10) {
                let expected: [Double] = x / 10 == index ? [0, 255, 0, 255] : [0, 0, 0, 0]
                #expect(
                    LayerCompositionTests.pixel(image, x, 5, is: expected),
                    "frame \(index) at x \(x): \(LayerCompositionTests.rgba(image, x, 5))")
            }
        }
        // The manifest names the program as the plugin's library, with that file's sha256.
        let manifest = try #require(OutputTrustTests.manifest(out))
        let plugins = try #require(manifest["plugins"] as? [[String: Any]])
        let entry = try #require(plugins.first { $0["id"] as? String == "test-marching-square" })
        #expect(entry["path"] as? String == PluginCatalog.executablePath())
        #expect(entry["sha256"] as? String == plugin.librarySHA256)
        #expect((entry["sha256"] as? String)?.count == 64)

        // It is listed like any plugin, and renders the same bytes at -j 1.
        #expect(CLI.run(["plugins"]).stdout.contains("test-marching-square"))
        let frames = try (0..<4).map {
            try Data(contentsOf: out.appendingPathComponent(String(format: "frame_%05d.png", $0)))
        }
        let again = CLI.run(["render", job, "--progress", "none", "-j", "1", "--force"])
        #expect(again.status == 0, "\(again.stderr)")
        for (index, bytes) in frames.enumerated() {
            #expect(try Data(contentsOf: out.appendingPathComponent(String(format: "frame_%05d.png", index))) == bytes)
        }
    }

    @Test("another type with a registered id is refused, naming both")
    func duplicateID() throws {
        try PluginCatalog.register(MarchingSquare.self)
        #expect(throws: PluginLoadError.self) { try PluginCatalog.register(Impostor.self) }
        do {
            try PluginCatalog.register(Impostor.self)
        } catch {
            #expect(error.description.contains("duplicate plugin id \"test-marching-square\""), "\(error)")
        }
    }
}
