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
            let result = CLI.run(command + ["--plugin-path", path])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "--plugin-path \"\(path)\" is \(kind == "file" ? "not a folder" : "no such folder")"),
                "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("validate and render run no code of a library named for an effect the job does not use; plugins loads it")
    func onlyUsedLibrariesLoad() throws {
        let folder = try TemporaryFolder()
        let marker = folder.url.appendingPathComponent("loaded").path
        // A plugin whose library leaves a file when it is loaded (its constructor runs at dlopen).
        let source =
            CPlugin.source(id: "sparkle", red: 1) + """

                #include <stdio.h>
                __attribute__((constructor)) static void loaded(void) {
                    FILE *file = fopen("\(marker)", "a");
                    if (file) { fputs("loaded\\n", file); fclose(file); }
                }
                """
        let plugins = folder.url.appendingPathComponent("plugins")
        try CPlugin.build(source, to: plugins.appendingPathComponent("librenderfarm-sparkle.so").path)
        let gradient = try folder.write(
            #"""
            {"duration": 1, "fps": 2, "canvas": {"width": 16, "height": 16}, "output": {"dir": "out"},
             "layers": [{"effect": "gradient"}]}
            """#, to: "gradient.json")
        for command in [["validate", gradient], ["render", gradient, "--progress", "none"]] {
            let result = CLI.run(command + ["--plugin-path", plugins.path])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker), "\(command) loaded librenderfarm-sparkle.so")
        }
        // A job that uses it loads it, and so does the command that lists every plugin.
        let sparkle = try folder.write(
            #"""
            {"duration": 1, "fps": 2, "canvas": {"width": 16, "height": 16}, "output": {"dir": "out2"},
             "layers": [{"effect": "sparkle"}]}
            """#, to: "sparkle.json")
        let validate = try Binary.run(["validate", sparkle, "--plugin-path", plugins.path])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect((try? String(contentsOfFile: marker, encoding: .utf8)) == "loaded\n")
        let listed = try Binary.run(["plugins", "--plugin-path", plugins.path])
        #expect(listed.status == 0 && listed.stdout.contains("sparkle"), "\(listed.stdout)")
        #expect((try? String(contentsOfFile: marker, encoding: .utf8)) == "loaded\nloaded\n")
    }

    @Test("an unknown effect names the folders searched")
    func unknownEffectNamesSearchPath() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"version": 1, "duration": 1, "layers": [{"effect": "no-such-effect"}]}"#, to: "job.json")
        let result = CLI.run(["validate", job, "--plugin-path", folder.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("unknown effect \"no-such-effect\""), "\(result.stderr)")
        #expect(result.stderr.contains("searched: \(folder.url.standardizedFileURL.path), "), "\(result.stderr)")
        let plugins = CLI.run(["plugins", "no-such-effect", "--plugin-path", folder.path])
        #expect(plugins.status == 69)
        #expect(plugins.stderr.contains("searched: \(folder.url.standardizedFileURL.path), "), "\(plugins.stderr)")
    }

    @Test("the user's plugin folder is searched after RENDERFARM_PLUGIN_PATH and before the executable's folder")
    func userFolder() throws {
        let folder = try TemporaryFolder()
        let noisy = Self.defects + "/librenderfarm-defect-noisy.so"
        let variable = folder.url.appendingPathComponent("variable").path
        let home = folder.path + "/home"
        let homeDefault = home + "/.local/share/renderfarm/plugins"
        let executable = Binary.buildDirectory.resolvingSymlinksInPath().path
        for (environment, user) in [
            (["XDG_DATA_HOME": folder.path + "/data"], folder.path + "/data/renderfarm/plugins"),
            // XDG_DATA_HOME unset (empty, or relative, counts as unset): the home folder's default.
            (["XDG_DATA_HOME": "", "HOME": home], homeDefault),
            (["XDG_DATA_HOME": "relative", "HOME": home], homeDefault),
        ] {
            try FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: user + "/librenderfarm-defect-noisy.so")
            try FileManager.default.copyItem(atPath: noisy, toPath: user + "/librenderfarm-defect-noisy.so")
            let listed = CLI.run(["plugins", "defect-noisy"], environment: environment)
            #expect(listed.status == 0, "\(environment): \(listed.stderr)")
            #expect(listed.stdout.contains("\(user)/librenderfarm-defect-noisy.so"), "\(listed.stdout)")
            let missing = CLI.run(
                ["plugins", "no-such-effect"],
                environment: environment.merging(["RENDERFARM_PLUGIN_PATH": variable]) { $1 })
            #expect(missing.stderr.contains("searched: \(variable), \(user), \(executable), "), "\(missing.stderr)")
        }
        // The same id in RENDERFARM_PLUGIN_PATH wins over the user's folder, with a warning naming both.
        try FileManager.default.createDirectory(atPath: variable, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: noisy, toPath: variable + "/librenderfarm-defect-noisy.so")
        let both = CLI.run(
            ["plugins", "defect-noisy"],
            environment: ["XDG_DATA_HOME": folder.path + "/data", "RENDERFARM_PLUGIN_PATH": variable])
        #expect(both.stdout.contains("\(variable)/librenderfarm-defect-noisy.so"), "\(both.stdout)")
        #expect(both.stderr.contains("\(folder.path)/data/renderfarm/plugins/librenderfarm-defect-noisy.so"))
    }

    /// A job of four frames of the plugin "sparkle" (`CPlugin.source(id: "sparkle", red: 200)`) in `folder`.
    static func sparkleJob(in folder: TemporaryFolder) throws -> String {
        try folder.write(
            #"""
            {"duration": 1, "fps": 4, "canvas": {"width": 16, "height": 16}, "layers": [{"effect": "sparkle"}]}
            """#, to: "sparkle.json")
    }

    @Test(
        "render --isolate's workers start in the command's environment: they find a plugin where it tells the render",
        arguments: ["RENDERFARM_PLUGIN_PATH", "XDG_DATA_HOME"])
    func isolatedWorkersGetTheEnvironment(_ variable: String) throws {
        let folder = try TemporaryFolder()
        // Set for this command only (an in-process run): this process's own environment names neither folder.
        let value = folder.path + "/" + variable
        let plugins = variable == "XDG_DATA_HOME" ? value + "/renderfarm/plugins" : value
        try CPlugin.build(CPlugin.source(id: "sparkle", red: 200), to: plugins + "/librenderfarm-sparkle.so")
        let job = try Self.sparkleJob(in: folder)
        var frames: [[Data]] = []
        for (name, extra) in [("direct", ["-j", "1"]), ("isolated", ["--isolate"])] {
            let out = folder.path + "/" + name
            let result = CLI.run(
                ["render", job, "--out", out, "--progress", "none"] + extra, environment: [variable: value])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            frames.append((0..<4).compactMap { FileManager.default.contents(atPath: out + "/frame_0000\($0).png") })
        }
        #expect(frames[0].count == 4 && frames[1] == frames[0], "the isolated frames differ from the direct ones")
    }

    @Test(
        "render --isolate with a plugin its sandboxed worker cannot read: the layer and the plugin are named, no frame",
        .enabled(if: getuid() == 0, "only root reads a folder that another user keeps to itself"))
    func pluginOutOfTheWorkersReach() throws {
        let folder = try TemporaryFolder()
        // Another user's folder that only its owner may read: root reads it here, but not inside the worker's user
        // namespace, where that user is not mapped and root's capabilities do not reach its files.
        let plugins = folder.path + "/private"
        let library = plugins + "/librenderfarm-sparkle.so"
        try CPlugin.build(CPlugin.source(id: "sparkle", red: 200), to: library)
        #expect(chown(plugins, 65534, 65534) == 0 && chown(library, 65534, 65534) == 0 && chmod(plugins, 0o700) == 0)
        let job = try Self.sparkleJob(in: folder)
        let out = folder.path + "/out"
        let result = CLI.run(
            ["render", job, "--out", out, "--isolate", "--sandbox", "require", "--plugin-path", plugins])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("layers[0].effect: the planning worker made no instance of effect \"sparkle\""))
        #expect(result.stderr.contains("found in \(library)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/frame_00000.png"))
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
