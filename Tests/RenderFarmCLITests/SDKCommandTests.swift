import Foundation
import RenderFarm
import Testing

@testable import RenderFarmCLI

@Suite("renderfarm plugin new / plugin check / completion / man-page")
struct SDKCommandTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rf-sdk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("a C scaffold compiles against the header and passes plugin check with no edits")
    func cScaffold() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let created = CLI.run(["plugin", "new", "test-bubbles", "--lang", "c", "--dir", folder.path])
        #expect(created.status == 0, "\(created.stderr)")
        let project = folder.appendingPathComponent("test-bubbles")
        for file in ["Makefile", "test_bubbles.c", "test_pixels.c", "example.json", "README.md"] {
            #expect(FileManager.default.fileExists(atPath: project.appendingPathComponent(file).path), "\(file)")
        }
        // The installed layout of the header: <includedir>/renderfarm/renderfarm_plugin.h.
        let include = folder.appendingPathComponent("include/renderfarm")
        try FileManager.default.createDirectory(at: include, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Binary.packageRoot.appendingPathComponent("Sources/RenderFarmPluginABI/include/renderfarm_plugin.h"),
            to: include.appendingPathComponent("renderfarm_plugin.h"))
        let library = project.appendingPathComponent("librenderfarm-test-bubbles.so").path
        let compile = try Tools.run(
            "/bin/sh",
            [
                "-c",
                "cc -O2 -Wall -Wextra -Werror -shared -fPIC -o '\(library)' test_bubbles.c "
                    + "-I'\(folder.path)/include' $(pkg-config --cflags --libs cairo) -lm",
            ],
            in: project)
        #expect(compile.status == 0, "\(compile.stderr)")
        let check = CLI.run(["plugin", "check", library])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("test-bubbles: "))
        #expect(check.stdout.contains("ok      threads:"))
        // What `make test` runs, as the Makefile spells it (its words are plain: no quoting to undo).
        let makefile = try String(contentsOf: project.appendingPathComponent("Makefile"), encoding: .utf8)
        let line = try #require(
            makefile.split(separator: "\n").first { $0.hasPrefix("\t$(RENDERFARM) render ") }, "\(makefile)")
        let words = line.dropFirst("\t$(RENDERFARM) ".count).split(separator: " ").map(String.init)
        #expect(words == PluginNewCommand.testRender(pluginFolder: "."))
        let render = try Binary.run(words, in: project)
        #expect(render.status == 0, "\(render.stderr)")
        let frames = project.appendingPathComponent(PluginScaffold.testOutput)
        for name in ["frame_00000.png", "frame_00030.png"] {
            #expect(FileManager.default.fileExists(atPath: frames.appendingPathComponent(name).path), "\(name)")
        }
    }

    @Test("plugin new prints the PKG_CONFIG_PATH line a prefix pkg-config does not search needs, and where to install")
    func scaffoldHints() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // An installed layout: <prefix>/bin/renderfarm (a copy: the prefix is found from the real path) and
        // <prefix>/lib/pkgconfig/renderfarm-plugin.pc.
        let prefix = folder.appendingPathComponent("prefix")
        let pcFolder = prefix.appendingPathComponent("lib/pkgconfig")
        try FileManager.default.createDirectory(at: pcFolder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        let renderfarm = prefix.appendingPathComponent("bin/renderfarm").path
        try Tools.copyExecutable(Binary.executable, to: renderfarm)
        try "prefix=\(prefix.path)\nName: renderfarm-plugin\nDescription: SDK\nVersion: 1.0.0\n"
            .write(to: pcFolder.appendingPathComponent("renderfarm-plugin.pc"), atomically: true, encoding: .utf8)
        let data = folder.appendingPathComponent("data").path
        let export = "  export PKG_CONFIG_PATH=\"\(pcFolder.path)${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}\""
        for (name, searched) in [("hint-unsearched", false), ("hint-searched", true)] {
            let environment = searched ? "PKG_CONFIG_PATH=\(pcFolder.path)" : "PKG_CONFIG_PATH="
            let created = try Tools.run(
                "/usr/bin/env",
                [
                    environment, "XDG_DATA_HOME=\(data)", renderfarm, "plugin", "new", name, "--lang", "c", "--dir",
                    folder.path,
                ])
            #expect(created.status == 0, "\(created.stderr)")
            let lines = created.text.split(separator: "\n").map(String.init)
            #expect(lines.contains(export) == !searched, "\(created.text)")
            #expect(
                created.text.contains(
                    "install: make install-user copies the library into \(data)/renderfarm/plugins, which renderfarm "
                        + "searches\n  by default; or use it where it is built: export RENDERFARM_PLUGIN_PATH="
                        + folder.appendingPathComponent(name).path), "\(created.text)")
            let makefile = try String(
                contentsOf: folder.appendingPathComponent("\(name)/Makefile"), encoding: .utf8)
            #expect(makefile.contains("install-user: $(PLUGIN)"))
        }
    }

    @Test("plugin check reports every broken rule of a bad plugin and exits 1")
    func checkFindsFaults() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = folder.appendingPathComponent("librenderfarm-bad.so").path
        let fixtures = Binary.packageRoot.appendingPathComponent("Tests/Fixtures")
        let header = Binary.packageRoot.appendingPathComponent("Sources/RenderFarmPluginABI/include")
        let compile = try Tools.run(
            "/bin/sh",
            [
                "-c",
                "cc -O1 -shared -fPIC -o '\(library)' '\(fixtures.path)/bad_plugin.c' -I'\(header.path)' "
                    + "$(pkg-config --cflags --libs cairo)",
            ])
        #expect(compile.status == 0, "\(compile.stderr)")
        let check = CLI.run(["plugin", "check", library])
        #expect(check.status == 1)
        for rule in [
            "descriptor.version", "descriptor.identifier", "parameter.size", "parameter.mood", "determinism", "stdout",
        ] {
            #expect(check.stdout.contains("FAIL    \(rule):"), "\(rule) not reported:\n\(check.stdout)")
        }
        // Its frames are not deterministic, so where its trace items lie is not compared with pixels (the
        // defect fixture trace-far shows that check).
        #expect(check.stdout.contains("note    trace: a JSON array of items"), "\(check.stdout)")
        // Quoted in the stdout finding, never a line of its own: the plugin's output was captured.
        #expect(
            !check.stdout.split(separator: "\n").contains { $0.hasPrefix("drawing frame") },
            "the plugin's own output leaked into the report")
    }

    @Test("plugin new refuses a bad id, a missing --lang and a folder that is not empty")
    func scaffoldRefusals() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let badID = CLI.run(["plugin", "new", "Bad_Name", "--lang", "c", "--dir", folder.path])
        #expect(badID.status == 64)
        #expect(badID.stderr.contains("not a plugin id"))
        let noLang = CLI.run(["plugin", "new", "fine", "--dir", folder.path])
        #expect(noLang.status == 64)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("taken/sub"), withIntermediateDirectories: true)
        let taken = CLI.run(["plugin", "new", "taken", "--lang", "c", "--dir", folder.path])
        #expect(taken.status == 73)
    }

    @Test("a Swift scaffold: a wrong EffectKit path given by option or variable is refused, never passed over")
    func swiftScaffoldSource() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let nowhere = folder.appendingPathComponent("nowhere").path
        let option = CLI.run([
            "plugin", "new", "a", "--lang", "swift", "--dir", folder.path, "--renderfarm-source", nowhere,
        ])
        #expect(option.status == 66)
        #expect(
            option.stderr.contains("--renderfarm-source \"\(nowhere)\" holds no EffectKit package"), "\(option.stderr)")
        let variable = try Binary.run(
            ["plugin", "new", "b", "--lang", "swift", "--dir", folder.path], environment: ["RENDERFARM_SOURCE": nowhere]
        )
        #expect(variable.status == 66)
        #expect(
            variable.stderr.contains("RENDERFARM_SOURCE=\"\(nowhere)\" holds no EffectKit package"),
            "\(variable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("a").path))
        // The checkout is an EffectKit package too; the project builds release through its Makefile.
        let made = CLI.run(
            [
                "plugin", "new", "c", "--lang", "swift", "--dir", folder.path, "--renderfarm-source",
                Binary.packageRoot.path,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let makefile = try String(contentsOf: folder.appendingPathComponent("c/Makefile"), encoding: .utf8)
        #expect(makefile.contains("\t$(SWIFT) build -c release\n"))
        #expect(makefile.contains("--plugin-path .build/release"))
    }

    @Test("plugin check exits 66 for a missing file and 69 for a file that is not a plugin")
    func checkRefusals() throws {
        let missing = CLI.run(["plugin", "check", "/nonexistent/libnothing.so"])
        #expect(missing.status == 66)
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let junk = folder.appendingPathComponent("libjunk.so")
        try Data("not ELF".utf8).write(to: junk)
        let broken = CLI.run(["plugin", "check", junk.path])
        #expect(broken.status == 69)
    }

    @Test("plugin check: frames that share a frame key must draw the same bytes; a key that misses a change fails")
    func frameKeys() throws {
        let library = Binary.testPluginDirectory + "/librenderfarm-test-faults.so"
        let good = CLI.run(["plugin", "check", library, "--params", #"{"holdFrames": 7, "markFrames": [10]}"#])
        #expect(good.stdout.contains("ok      frame-keys: 120 of 120 frames keyed, 19 distinct keys"), "\(good.stdout)")
        let wrong = CLI.run([
            "plugin", "check", library, "--params", #"{"holdFrames": 7, "markFrames": [10], "keyIgnoresMarks": true}"#,
        ])
        #expect(wrong.status == 1)
        #expect(
            wrong.stdout.contains("FAIL    frame-keys: frames 7 and 10 have one key but draw different bytes"),
            "\(wrong.stdout)")
        let keyless = CLI.run(["plugin", "check", library])
        #expect(keyless.stdout.contains("note    frame-keys: reports no frame keys"), "\(keyless.stdout)")
    }

    @Test("completion scripts list every command and parse in their shell", arguments: ["bash", "zsh", "fish"])
    func completions(_ shell: String) throws {
        let script = CLI.run(["completion", shell])
        #expect(script.status == 0)
        for word in ["render", "validate", "plugins", "check", "plugin-path", "lang"] {
            #expect(script.stdout.contains(word), "\(shell) lacks \(word)")
        }
        guard let interpreter = Tools.find(shell) else { return }  // zsh and fish are optional on CI
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("renderfarm.\(shell)")
        try Data(script.stdout.utf8).write(to: file)
        let syntax = try Tools.run(interpreter, ["-n", file.path])
        #expect(syntax.status == 0, "\(syntax.stderr)")
    }

    @Test("the man page is generated from every command's help")
    func manPage() throws {
        let page = CLI.run(["man-page"])
        #expect(page.status == 0)
        #expect(page.stdout.hasPrefix(".TH RENDERFARM 1"))
        for command in ["render", "plugin new", "plugin check", "completion", "submit"] {
            #expect(page.stdout.contains(".SS \"\(command)\""), "\(command)")
        }
        #expect(page.stdout.contains("\\fB\\-\\-plugin\\-path\\fR"))
    }

    @Test("renderfarm(1) names the exit statuses of a plugin crash, 134 and 139, and the other pages")
    func manPageCrashStatuses() throws {
        let page = CLI.run(["man-page"]).stdout
        #expect(page.contains("134 (SIGABRT"), "\(page.suffix(1200))")
        #expect(page.contains("139 (SIGSEGV"), "\(page.suffix(1200))")
        #expect(page.contains("\\fBrenderfarm\\-job\\fR(5), "))
        #expect(page.contains("\\fBrenderfarm\\-plugin\\fR(7), "))
    }

    @Test("help plugin and plugin --help list the subcommands and name the guide; plugin alone is a usage error")
    func groupHelp() throws {
        for words in [["help", "plugin"], ["plugin", "--help"]] {
            let help = CLI.run(words)
            #expect(help.status == 0, "\(words): \(help.stderr)")
            #expect(help.stdout.contains("plugin new    Create a plugin project"), "\(help.stdout)")
            #expect(help.stdout.contains("plugin check  Check a plugin library"), "\(help.stdout)")
            #expect(help.stdout.contains("man renderfarm-plugin"), "\(help.stdout)")
        }
        let new = CLI.run(["help", "plugin", "new"])
        #expect(new.status == 0)
        #expect(new.stdout.contains("USAGE: renderfarm plugin new NAME"))
        #expect(CLI.run(["plugin"]).status == 64)
    }
}
