import Foundation
import RenderFarmPluginABI
import StrictJSON
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

@Suite("Layer creation: what the engine hands each plugin's create, for hosts of their own (renderfarm-bench)")
struct LayerCreationTests {
    static let catalog = PluginCatalog.discover(searchPath: PluginCatalog.searchPath())

    @Test("layerCreations give the plugin, start, seed and the parameters with defaults filled")
    func creations() throws {
        let text = """
            {"version": 1, "name": "creations", "seed": 8,
             "canvas": {"width": 40, "height": 30, "scale": 1, "background": "#000000"}, "fps": 10, "duration": 1,
             "layers": [{"effect": "gradient", "params": {"angle": 45}},
                        {"effect": "floating-heart", "start": 0.5, "params": {"rate": 3}}]}
            """
        let spec = try JobLoader.decode(Data(text.utf8), file: "creations.json", defaultName: "creations")
        let job = LoadedJob(spec: spec, file: "/tmp/creations.json", directory: "/tmp")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rf-creations-\(UUID().uuidString)")
        let prepared = try #require(
            try RenderEngine(catalog: Self.catalog, options: PlanOptions(outputOverride: out.path)).prepare([job]).first
        )
        let layers = prepared.layerCreations
        #expect(layers.map(\.plugin.id) == ["gradient", "floating-heart"])
        #expect(layers.map(\.start) == [0, 0.5])
        #expect(layers.map(\.seed) == [rf_derive_seed(8, 0), rf_derive_seed(8, 1)])
        #expect(layers[0].params.keys == ["from", "to", "angle", "vignette"])
        #expect(layers[0].params["angle"] == .number(45))
        #expect(layers[0].params["vignette"] == .number(0))
        #expect(layers[1].params["rate"] == .number(3))
        #expect(layers[1].params["size"] == .number(36))
    }

    @Test("ParamStore answers as the rf_param_access getters do, and gives params_json")
    func paramStore() {
        let store = ParamStore([
            "color": "#FF000080", "size": 4, "flag": true, "mode": "fast", "at": [1, 2],
            "area": ["x": 1, "y": 2, "width": 3, "height": 4],
        ])
        #expect(store.paramsJSON == JSONValue.object(store.values).serialized())
        #expect(ParamStore([:]).paramsJSON == "{}")
        #expect(store.number("size") == 4)
        #expect(store.number("flag") == 1)
        #expect(store.number("mode") == nil)
        #expect(store.numbers("color") == [1, 0, 0, 128.0 / 255])
        #expect(store.numbers("size") == [4, 4])
        #expect(store.numbers("at") == [1, 2])
        #expect(store.numbers("area") == [1, 2, 3, 4])
        #expect(store.numbers("flag") == nil)
        #expect(store.string("mode") == "fast")
        #expect(store.string("size") == nil)
        #expect(store.json("at") == "[1,2]")
        #expect(store.json("missing") == nil)
    }
}
