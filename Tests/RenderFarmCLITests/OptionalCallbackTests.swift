import Foundation
import StrictJSON
import Testing

/// Issue 32: an optional plugin function a plugin does not offer is "not offered" everywhere, whether
/// the plugin leaves it NULL (EffectKit, for an effect that is not a `TracingEffect`) or answers
/// `RF_ERROR_UNSUPPORTED` (Swift plugins built with an older EffectKit).
@Suite("optional plugin functions: a plugin without trace")
struct OptionalCallbackTests {
    static var swiftFixtures: String { Binary.testPluginDirectory + "/swift" }
    static var defects: String { Binary.testPluginDirectory + "/defects" }

    /// A job with the floating heart under `effect`, 10 frames.
    static func job(_ effect: String, in folder: TemporaryFolder) throws -> String {
        try folder.write(
            """
            {"version": 1, "name": "untraced", "canvas": {"width": 120, "height": 160}, "fps": 10, "duration": 1,
             "output": {"dir": "out"},
             "layers": [{"effect": "floating-heart", "params": {"emitter": [60, 150], "rate": 8}},
                        {"effect": "\(effect)"}]}
            """, to: "job.json")
    }

    /// Every stdout line of `trace` parses as one frame, and holds layer 0 (the heart) only.
    static func expectHeartsOnly(_ trace: Binary.Result, frames: Int) throws {
        let lines = trace.stdout.split(separator: "\n")
        #expect(lines.count == frames, "\(trace.stdout.prefix(300))")
        for line in lines {
            let object = try #require(try JSONParser.parse(String(line)).objectValue)
            let layers = try #require(object["layers"]?.arrayValue)
            #expect(layers.compactMap { $0.objectValue?["layer"]?.doubleValue } == [0], "\(line.prefix(200))")
        }
    }

    @Test("a Swift effect without trace: plugins says trace: no, trace and preview --debug work, plugin check notes it")
    func swiftEffectWithoutTrace() throws {
        try #require(
            FileManager.default.fileExists(atPath: Self.swiftFixtures), "run `make test-plugin` to build the fixtures")
        let folder = try TemporaryFolder()
        let job = try Self.job("fixture-red", in: folder)
        let path = ["--plugin-path", Self.swiftFixtures]
        let listed = CLI.run(["plugins", "fixture-red"] + path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("trace: no"), "\(listed.stdout)")
        let trace = CLI.run(["trace", job] + path)
        #expect(trace.status == 0, "\(trace.stderr)")
        try Self.expectHeartsOnly(trace, frames: 10)
        let sheet = folder.url.appendingPathComponent("sheet.png").path
        let preview = CLI.run(["preview", job, "-o", sheet, "--debug", "--frames", "0-9:3"] + path)
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(FileManager.default.fileExists(atPath: sheet))
        let check = CLI.run(["plugin", "check", Self.swiftFixtures + "/librenderfarm-fixture-red.so"])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("note    trace: not offered"), "\(check.stdout)")
    }

    @Test("a trace that answers RF_ERROR_UNSUPPORTED leaves the layer out with a note, in trace and preview --debug")
    func unsupportedTrace() throws {
        let folder = try TemporaryFolder()
        let job = try Self.job("defect-unsupported-trace", in: folder)
        let path = ["--plugin-path", Self.defects]
        let trace = CLI.run(["trace", job] + path)
        #expect(trace.status == 0, "\(trace.stderr)")
        try Self.expectHeartsOnly(trace, frames: 10)
        #expect(trace.stderr.contains("layer 1 (defect-unsupported-trace) does not trace; left out"), "\(trace.stderr)")
        let sheet = folder.url.appendingPathComponent("sheet.png").path
        let preview = CLI.run(["preview", job, "-o", sheet, "--debug", "--frames", "0-9:3"] + path)
        #expect(preview.status == 0, "\(preview.stderr)")
        let check = CLI.run(["plugin", "check", Self.defects + "/librenderfarm-defect-unsupported-trace.so"])
        #expect(check.stdout.contains("note    trace: not offered"), "\(check.stdout)")
        #expect(!check.stdout.contains("FAIL    trace"), "\(check.stdout)")
    }
}
