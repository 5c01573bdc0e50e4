import Foundation
import RenderFarmPluginABI
import StrictJSON
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

@Suite("Plugin SDK: third-party Swift plugins, the previous header, colour lists, plugin check")
struct SDKTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `make test-plugin` builds the two Swift fixtures into this folder.
    static let swiftFixtures =
        (ProcessInfo.processInfo.environment["RENDERFARM_TEST_PLUGIN_DIR"]
            ?? root.appendingPathComponent(".build/test-plugins").path) + "/swift"

    /// Frame 0 of `plugin` at its defaults (ARGB32 bytes, 375 points wide at scale 1).
    static func frame(_ plugin: LoadedPlugin, params: JSONObject = [:], index: Int = 0) throws -> PluginCheck.Frame {
        var setting = PluginCheck.Setting()
        setting.params = params
        let check = PluginCheck(plugin, setting: setting)
        let (filled, issues) = ParameterValidator.validate(params, against: plugin.info, path: "params")
        #expect(issues.isEmpty)
        return try check.draw(try check.makeInstance(filled), index).get()
    }

    /// The (r, g, b, a) of pixel (x, y) in `frame` (cairo's ARGB32 is B, G, R, A in memory here).
    static func pixel(_ frame: PluginCheck.Frame, _ x: Int, _ y: Int) -> [UInt8] {
        let offset = y * frame.stride + x * 4
        return [frame.pixels[offset + 2], frame.pixels[offset + 1], frame.pixels[offset], frame.pixels[offset + 3]]
    }

    @Test("two independently built Swift plugins and every built-in load into one process; each draws its own effect")
    func swiftPluginsSideBySide() throws {
        try #require(
            FileManager.default.fileExists(atPath: Self.swiftFixtures),
            "run `make test-plugin` to build Tests/Fixtures/SwiftPlugins")
        // The fixtures first and last on the path: neither order may change what a library builds.
        for path in [
            [Self.swiftFixtures] + PluginCatalog.searchPath(), PluginCatalog.searchPath() + [Self.swiftFixtures],
        ] {
            let catalog = PluginCatalog.discover(searchPath: path)
            #expect(catalog.diagnostics.isEmpty, "\(catalog.diagnostics)")
            for id in ["floating-heart", "gradient", "parabolic-drop", "physics-bounce", "fixture-red", "fixture-blue"]
            {
                #expect(catalog[id] != nil, "\(id) not loaded")
            }
            let red = try Self.frame(try #require(catalog["fixture-red"]))
            let blue = try Self.frame(try #require(catalog["fixture-blue"]))
            #expect(Self.pixel(red, 25, 25) == [255, 0, 0, 255])
            #expect(Self.pixel(red, 65, 65) == [0, 0, 0, 0])
            #expect(Self.pixel(blue, 65, 65) == [0, 0, 255, 255])
            #expect(Self.pixel(blue, 25, 25) == [0, 0, 0, 0])
            // The built-in Swift plugins still build their own effects beside them.
            let hearts = try Self.frame(try #require(catalog["floating-heart"]), index: 60)
            #expect(!hearts.isBlank)
            #expect(Self.pixel(hearts, 25, 25) == [0, 0, 0, 0])
        }
    }

    @Test("a plugin built against the previous header keeps loading, creating and rendering")
    func previousHeader() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-old-abi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = folder.appendingPathComponent("librenderfarm-old.so").path
        let cairo = try Self.shell("pkg-config --cflags --libs cairo").split(separator: " ").map(String.init)
        let compile = try Self.run(
            "/usr/bin/cc",
            [
                "-shared", "-fPIC", "-O1", "-o", library,
                Self.root.appendingPathComponent("Tests/Fixtures/test_plugin.c").path,
                "-I", Self.root.appendingPathComponent("Tests/Fixtures/abi-v1.0").path,
            ] + cairo + ["-lm"])
        #expect(compile == 0)
        let plugin = try PluginCatalog.loadLibrary(library)
        #expect(plugin.info.id == "test-faults")
        #expect(Int(plugin.descriptor.pointee.struct_size) < MemoryLayout<rf_plugin>.size)
        let frame = try Self.frame(plugin)
        #expect(!frame.isBlank)
    }

    @Test("colour lists: the host checks every element and the count, and the getter gives r, g, b, a each")
    func colorLists() {
        let parameter = PluginParameter(
            name: "colors", kind: .colorList, defaultValue: nil, min: 1, max: 3, choices: [], doc: "palette")
        #expect(parameter.problem(with: ["#FF0000", "#00FF0080"]) == nil)
        #expect(parameter.problem(with: ["#FF0000", "red"])?.hasPrefix("element 1:") == true)
        #expect(parameter.problem(with: []) == "0 colours is out of range (allowed: 1…3 colours)")
        #expect(parameter.problem(with: "#FF0000")?.hasPrefix("expected a list of colours") == true)
        let store = ParamStore(["colors": ["#FF0000", "#0000FF80"]])
        #expect(store.numbers("colors") == [1, 0, 0, 1, 0, 0, 1, Double(0x80) / 255])
    }

    @Test(
        "plugin check: the id rule, as the host applies it when loading",
        arguments: [
            ("floating-heart", true), ("a1-b2", true), ("3d-text", true), ("Floating", false), ("-heart", false),
            ("snake_case", false), ("", false), (String(repeating: "a", count: 65), false),
        ])
    func idRule(_ id: String, _ valid: Bool) {
        #expect(PluginCheck.isValidID(id) == valid)
    }

    @Test("plugin check: semantic versions and reverse-DNS identifiers")
    func versionsAndIdentifiers() {
        for version in ["1.0.0", "0.12.3-beta.1", "2.0.0+build.5"] { #expect(PluginCheck.isSemanticVersion(version)) }
        for version in ["1.0", "01.0.0", "1.0.0-", "v1.0.0", "1.a.0"] {
            #expect(!PluginCheck.isSemanticVersion(version))
        }
        #expect(PluginCheck.isReverseDNS("org.renderfarm.floating-heart"))
        #expect(!PluginCheck.isReverseDNS("floating-heart"))
        #expect(!PluginCheck.isReverseDNS("org..heart"))
    }

    @Test("plugin check passes every built-in plugin (physics-bounce with its fixture's items)")
    func builtInsPass() throws {
        let catalog = PluginCatalog.discover(searchPath: PluginCatalog.searchPath())
        for id in ["floating-heart", "gradient", "parabolic-drop", "physics-bounce"] {
            var setting = PluginCheck.Setting()
            // The memory check reads this process's resident set, which the tests running beside it move.
            setting.memoryFrames = 0
            let params = Self.root.appendingPathComponent("Tests/Fixtures/plugin-check/\(id).json")
            if let text = try? String(contentsOf: params, encoding: .utf8),
                case .object(let object) = try JSONParser.parse(text)
            {
                setting.params = object
            }
            let findings = PluginCheck(try #require(catalog[id]), setting: setting).run()
            #expect(PluginCheck.passed(findings), "\(id): \(findings.filter { $0.level == .failure })")
            #expect(findings.contains { $0.check == "determinism" && $0.level == .pass })
        }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func shell(_ command: String) throws -> String {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
