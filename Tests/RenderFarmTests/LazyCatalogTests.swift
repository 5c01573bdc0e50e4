import EffectKit
import Foundation
import Testing

@testable import RenderFarmJobs

/// Issue 47: a command that checks jobs loads only the libraries their layers use (`discover(using:)`), and finds
/// for each id it uses the same library `discover` finds with every library loaded.
@Suite("plugins loaded for the ids a job uses")
struct LazyCatalogTests {
    static let testPlugins =
        ProcessInfo.processInfo.environment["RENDERFARM_TEST_PLUGIN_DIR"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/test-plugins").path

    /// C libraries (Swift ones are not copied: two copies of one Swift library would hold one runtime's types
    /// twice), by the id each holds.
    static func libraries() throws -> [String: String] {
        let gradient = try #require(PluginCatalog.discover(searchPath: PluginCatalog.searchPath())["gradient"])
        let byID = [
            "gradient": gradient.info.path,
            "test-faults": testPlugins + "/librenderfarm-test-faults.so",
            "test-probe": testPlugins + "/librenderfarm-test-probe.so",
            "test-asset": testPlugins + "/asset/librenderfarm-test-asset.so",
        ]
        for path in byID.values {
            try #require(FileManager.default.fileExists(atPath: path), "run `make test-plugin` to build \(path)")
        }
        return byID
    }

    /// Which library provides each of `ids`, as paths relative to `base`.
    static func providers(_ catalog: PluginCatalog, _ ids: Set<String>, base: String) -> [String: String] {
        ids.reduce(into: [:]) { result, id in
            result[id] = catalog[id]?.info.path.replacingOccurrences(of: base, with: "")
        }
    }

    @Test("300 generated search paths: the same library for every id used, and no library named for another id loaded")
    func generated() throws {
        let libraries = try Self.libraries()
        let ids = libraries.keys.sorted()
        var random = SeededRandom(seed: 0x6c_617a_79)
        var lazyRuns = 0
        for arrangement in 0..<300 {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("rf-lazy-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: base) }
            let folders = (0..<Int(random.uniform(3)) + 1).map { base.appendingPathComponent("p\($0)") }
            for folder in folders {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            // Each library in some folders, under its own conventional name or a name that tells no id.
            for (number, id) in ids.enumerated() {
                for folder in folders where random.uniform(2) == 0 {
                    let name =
                        random.uniform(3) == 0 ? "lib\(number)-\(random.uniform(100)).so" : "librenderfarm-\(id).so"
                    try FileManager.default.copyItem(
                        atPath: libraries[id] ?? "", toPath: folder.appendingPathComponent(name).path)
                }
            }
            let searchPath = folders.map(\.path)
            var wanted = Set(ids.filter { _ in random.uniform(3) == 0 })
            if random.uniform(6) == 0 { wanted.insert("not-installed") }
            let eager = PluginCatalog.discover(searchPath: searchPath)
            let lazy = PluginCatalog.discover(searchPath: searchPath, using: wanted)
            #expect(
                Self.providers(lazy, wanted, base: base.path) == Self.providers(eager, wanted, base: base.path),
                "arrangement \(arrangement): \(wanted.sorted())")
            // When every id was found, no library named for an id the job does not use was opened.
            if wanted.isSubset(of: lazy.plugins.keys) {
                lazyRuns += 1
                let loaded =
                    lazy.plugins.values.map { URL(fileURLWithPath: $0.info.path).lastPathComponent }
                    + lazy.diagnostics.map(\.description)
                for id in Set(ids).subtracting(wanted) {
                    #expect(
                        !loaded.contains { $0.contains("librenderfarm-\(id).so") }, "arrangement \(arrangement): \(id)")
                }
            } else {
                // The libraries of this search path: effects other tests register in this process meanwhile
                // (`registeredPlugins`) are in every catalog, and may differ between the two.
                let loaded = { (catalog: PluginCatalog) in
                    catalog.plugins.filter { $0.value.info.path.hasPrefix(base.path) }.keys.sorted()
                }
                #expect(loaded(lazy) == loaded(eager), "arrangement \(arrangement): \(wanted.sorted())")
            }
        }
        // The generator reaches both branches: found lazily, and loaded whole.
        #expect(lazyRuns > 50 && lazyRuns < 290, "\(lazyRuns) of 300 found lazily")
    }

    @Test("a library named for one id that holds another is found by loading the whole path")
    func misnamedLibrary() throws {
        let libraries = try Self.libraries()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-lazy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            atPath: libraries["test-probe"] ?? "", toPath: folder.appendingPathComponent("librenderfarm-probe.so").path)
        try FileManager.default.copyItem(
            atPath: libraries["gradient"] ?? "", toPath: folder.appendingPathComponent("librenderfarm-gradient.so").path
        )
        let catalog = PluginCatalog.discover(searchPath: [folder.path], using: ["test-probe"])
        #expect(catalog["test-probe"]?.info.path == folder.appendingPathComponent("librenderfarm-probe.so").path)
        #expect(catalog["gradient"] != nil, "the whole path was loaded")
        let only = PluginCatalog.discover(searchPath: [folder.path], using: ["gradient"])
        #expect(only.plugins.values.filter { $0.info.path.hasPrefix(folder.path) }.map(\.info.id) == ["gradient"])
    }
}
