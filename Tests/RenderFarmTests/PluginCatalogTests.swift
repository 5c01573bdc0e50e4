import Foundation
@testable import RenderFarmJobs
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
        #expect(
            catalog.diagnostics.contains {
                if case .duplicateID(let id, let path, _) = $0 {
                    id == "floating-heart" && path == heart
                } else {
                    false
                }
            })
    }

    @Test("the host checks parameters against the table before create")
    func parameterValidation() throws {
        let info = try #require(Self.catalog["floating-heart"]).info
        let (filled, issues) = ParameterValidator.validate(
            ["rate": 500, "sise": 3, "fade": "adittive", "emitter": [1], "colors": "random"], against: info,
            path: "layers[0].params")
        #expect(
            issues.map(\.description) == [
                "layers[0].params.sise: \"floating-heart\" has no parameter \"sise\" (did you mean \"size\"?); see `renderfarm plugins floating-heart`",
                "layers[0].params.emitter: expected a point [x, y], got [1]",
                "layers[0].params.rate: 500 is out of range (allowed: 0…120)",
                "layers[0].params.fade: expected one of replace, additive, got \"adittive\" (did you mean \"additive\"?)",
            ])
        #expect(filled["size"] == .number(36))
        #expect(filled["times"] == nil)
    }

    @Test("a library without rf_plugin_main and a plugin built for another ABI version are diagnosed")
    func notAPluginAndABIMismatch() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-abi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/RenderFarmPluginABI/include").path
        let sources = [
            "libother.so": "int unrelated(void) { return 1; }",
            "libfuture.so": """
            #include "renderfarm_plugin.h"
            static const rf_plugin future = { .abi_version = 2, .struct_size = sizeof(rf_plugin), .id = "future" };
            const rf_plugin *rf_plugin_main(uint32_t host) { (void)host; return &future; }
            """,
        ]
        for (name, source) in sources {
            let file = folder.appendingPathComponent(name + ".c")
            try source.write(to: file, atomically: true, encoding: .utf8)
            let compiler = Process()
            compiler.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
            compiler.arguments = [
                "-shared", "-fPIC", "-I", header, "-o", folder.appendingPathComponent(name).path, file.path,
            ]
            try compiler.run()
            compiler.waitUntilExit()
            try #require(compiler.terminationStatus == 0)
        }
        let catalog = PluginCatalog.discover(searchPath: [folder.path])
        // Nothing from the folder (effects other tests registered in this process are in every catalog).
        #expect(catalog.plugins.values.allSatisfy { $0.info.path == PluginCatalog.executablePath() })
        let messages = catalog.diagnostics.map(\.description)
        #expect(messages.contains { $0.hasSuffix("libother.so: not a RenderFarm plugin (no rf_plugin_main symbol)") })
        #expect(
            messages.contains {
                $0.hasSuffix("libfuture.so: built for plugin ABI v2, this renderfarm speaks v1; rebuild the plugin")
            })
    }
}
