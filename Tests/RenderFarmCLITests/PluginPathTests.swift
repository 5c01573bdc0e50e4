import Foundation
import StrictJSON
import Testing

/// Issue 32: plugin misconfiguration is never silent, and no plugin can corrupt a command's output.
@Suite("plugin search path and plugin output")
struct PluginPathTests {
    static var defects: String { Binary.testPluginDirectory + "/defects" }

    @Test("a --plugin-path that is a file or missing is a usage error naming it", arguments: ["file", "missing"])
    func pluginPathNotAFolder(_ kind: String) throws {
        let folder = try TemporaryFolder()
        let path =
            kind == "file"
            ? try folder.write("not a folder", to: "librenderfarm-x.so")
            : folder.url.appendingPathComponent("nope").path
        for command in [["plugins"], ["validate", "jobs/live-hearts.json"], ["trace", "jobs/live-hearts.json"]] {
            let result = try Binary.run(command + ["--plugin-path", path])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "--plugin-path \"\(path)\" is \(kind == "file" ? "not a folder" : "no such folder")"),
                "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("an unknown effect names the folders searched")
    func unknownEffectNamesSearchPath() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"version": 1, "duration": 1, "layers": [{"effect": "no-such-effect"}]}"#, to: "job.json")
        let result = try Binary.run(["validate", job, "--plugin-path", folder.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("unknown effect \"no-such-effect\""), "\(result.stderr)")
        #expect(result.stderr.contains("searched: \(folder.url.standardizedFileURL.path), "), "\(result.stderr)")
        let plugins = try Binary.run(["plugins", "no-such-effect", "--plugin-path", folder.path])
        #expect(plugins.status == 69)
        #expect(plugins.stderr.contains("searched: \(folder.url.standardizedFileURL.path), "), "\(plugins.stderr)")
    }

    @Test("a plugin that prints to stdout cannot corrupt trace's JSON lines: its text goes to stderr")
    func pluginStdoutGoesToStderr() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            {"version": 1, "canvas": {"width": 100, "height": 100}, "fps": 10, "duration": 1,
             "layers": [{"effect": "defect-noisy"}]}
            """, to: "job.json")
        let trace = try Binary.run(["trace", job, "--plugin-path", Self.defects])
        #expect(trace.status == 0, "\(trace.stderr)")
        let lines = trace.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 10, "\(trace.stdout.prefix(400))")
        for line in lines {
            let object = try JSONParser.parse(String(line)).objectValue
            #expect(object?["layers"]?.arrayValue?.count == 1, "not a trace line: \(line.prefix(100))")
        }
        #expect(trace.stderr.contains("noisy: created"), "\(trace.stderr)")
        #expect(trace.stderr.contains("noisy: tracing frame 9"), "\(trace.stderr)")
        let json = try Binary.run(["plugins", "defect-noisy", "--json", "--plugin-path", Self.defects])
        #expect((try? JSONParser.parse(json.stdout)) != nil, "\(json.stdout.prefix(300))")
    }
}
