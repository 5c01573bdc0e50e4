import Foundation
import Testing

@testable import RenderFarm

@Suite("Plugin catalog: discovery and loading of the real libraries")
struct PluginCatalogTests {
    static let catalog = PluginCatalog.discover(searchPath: PluginCatalog.searchPath())

    @Test("the built plugins load from the executable's folder, the Swift and the C one")
    func builtPlugins() throws {
        let heart = try #require(Self.catalog["floating-heart"])
        #expect(heart.info.identifier == "org.renderfarm.floating-heart")
        #expect(heart.info.threadSafety == .full)
        #expect(heart.info.canTrace)
        #expect(heart.info.parameter(named: "pathSampling")?.choices == ["bezier", "paced"])
        #expect(heart.info.parameter(named: "size")?.defaultValue == .number(36))
        let gradient = try #require(Self.catalog["gradient"])
        #expect(gradient.info.path.hasSuffix("librenderfarm-gradient.so"))
        #expect(!gradient.info.canTrace)
        #expect(Self.catalog.diagnostics.isEmpty, "\(Self.catalog.diagnostics)")
    }

    @Test("a library without the entry point, a broken file and a duplicate id become diagnostics")
    func diagnostics() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not an ELF file".utf8).write(to: folder.appendingPathComponent("libbroken.so"))
        let heart = try #require(Self.catalog["floating-heart"]).info.path
        try FileManager.default.copyItem(atPath: heart, toPath: folder.appendingPathComponent("libcopy.so").path)
        let catalog = PluginCatalog.discover(searchPath: [folder.path] + PluginCatalog.searchPath())

        #expect(catalog["floating-heart"]?.info.path == folder.appendingPathComponent("libcopy.so").path)
        #expect(catalog.diagnostics.contains { if case .cannotOpen = $0 { true } else { false } })
        #expect(catalog.diagnostics.contains {
            if case .duplicateID(let id, let path, _) = $0 { id == "floating-heart" && path == heart } else { false }
        })
    }

    @Test("the host checks parameters against the table before create")
    func parameterValidation() throws {
        let info = try #require(Self.catalog["floating-heart"]).info
        let (filled, issues) = ParameterValidator.validate(
            ["rate": 500, "sise": 3, "fade": "adittive", "emitter": [1], "colors": "random"], against: info,
            path: "layers[0].params")
        #expect(issues.map(\.description) == [
            "layers[0].params.sise: \"floating-heart\" has no parameter \"sise\" (did you mean \"size\"?); see `renderfarm plugins floating-heart`",
            "layers[0].params.emitter: expected a point [x, y], got [1]",
            "layers[0].params.rate: 500 is out of range (allowed: 0…120)",
            "layers[0].params.fade: expected one of replace, additive, got \"adittive\" (did you mean \"additive\"?)",
        ])
        #expect(filled["size"] == .number(36))
        #expect(filled["times"] == nil)
    }
}
