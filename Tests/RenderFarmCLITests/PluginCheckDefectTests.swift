import Foundation
import Testing

/// Issue 32: `plugin check` catches a drawing that ignores the canvas scale and one that wipes the
/// layers below; the host refuses a plugin whose defaults break its own parameter table. Issue 43: it
/// fails a plugin that declares RF_PLUGIN_KEYS_COVER_PARAMS while its key leaves out a parameter. Issue 45:
/// a plugin whose frames are not deterministic fails that check alone, with the fix.
@Suite("plugin check: scale, backdrop, defaults, keys that cover the parameters")
struct PluginCheckDefectTests {
    static var defects: String { Binary.testPluginDirectory + "/defects" }
    static func library(_ defect: String) -> String { defects + "/librenderfarm-defect-\(defect).so" }

    @Test(
        "a plugin with one mistake fails plugin check with one clear finding",
        arguments: [
            (
                "ignores-scale",
                "FAIL    scale: frame 0 draws (20, 20)–(60, 60) pt covering 1600 pt² at scale 1, "
                    + "but (10, 10)–(30, 30) pt covering 400 pt² at scale 2"
            ),
            (
                "wipes-backdrop",
                "FAIL    backdrop: frame 0 changes 248525 pixels of the layers below where it draws "
                    + "nothing (at pixel (0, 0) #3366CCFF became #00000000)"
            ),
            ("bad-default", "FAIL    parameter.size: default 400: 400 is out of range (allowed: 1…100)"),
            (
                "trace-far",
                "FAIL    trace: frame 0: item 0 is visible at (320, 620) but nothing is drawn within 12 points"
            ),
            (
                "key-ignores-param",
                ##"FAIL    keys-cover-params: parameter "color" changed to "#40FF00" changes the pixels of frame 0 "##
                    + "but not its key: hash every parameter that shapes the drawing into the key, or do not declare "
                    + "RF_PLUGIN_KEYS_COVER_PARAMS"
            ),
        ])
    func defectFails(_ defect: String, _ finding: String) throws {
        let check = CLI.run(["plugin", "check", Self.library(defect)])
        #expect(check.status == 1, "\(check.stdout)")
        #expect(check.stdout.contains(finding), "\(check.stdout)")
        #expect(check.stdout.contains("defect-\(defect): "), "\(check.stdout)")
        #expect(check.stdout.contains(", 1 failure"), "exactly one finding fails:\n\(check.stdout)")
    }

    @Test("rand() in render fails determinism alone, with the fix; checks that compare renders are not checked")
    func randomFailsOnlyDeterminism() throws {
        let check = CLI.run(["plugin", "check", Self.library("random")])
        #expect(check.status == 1, "\(check.stdout)")
        #expect(
            check.stdout.contains(
                "FAIL    determinism: frame 0 drawn again by the same instance has different bytes: draw random "
                    + "numbers in create from ctx->seed (rf_derive_seed), never rand() or the clock"),
            "\(check.stdout)")
        #expect(check.stdout.contains(", 1 failure"), "exactly one finding fails:\n\(check.stdout)")
        for skipped in ["threads", "scale", "backdrop"] {
            #expect(
                check.stdout.contains("note    \(skipped): not checked: frames are not deterministic"),
                "\(check.stdout)")
        }
        #expect(check.stdout.contains("note    trace: a JSON array of items"), "\(check.stdout)")
    }

    @Test("files named per parameter value are readable in the check's sandbox; a missing one fails, named")
    func parameterFiles() throws {
        let folder = try TemporaryFolder()
        try folder.write("30\n", to: "style-a.txt")
        try folder.write("60\n", to: "style-b.txt")
        let check = try Binary.run(["plugin", "check", Self.library("param-files")], in: folder.url)
        #expect(check.status == 0, "\(check.stdout)")
        #expect(
            check.stdout.contains(#"ok      range.style: create, render and destroy at "a", "b""#), "\(check.stdout)")
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("style-b.txt"))
        let missing = try Binary.run(["plugin", "check", Self.library("param-files")], in: folder.url)
        #expect(missing.status == 1, "\(missing.stdout)")
        // No instance could name it, so the sandbox refuses the open: the failure names the file.
        #expect(missing.stdout.contains("FAIL    "), "\(missing.stdout)")
        #expect(missing.stdout.contains("\(folder.path)/style-b.txt"), "\(missing.stdout)")
    }

    @Test("a sound plugin passes the scale and backdrop checks")
    func soundPluginPasses() throws {
        let check = CLI.run(["plugin", "check", Self.library("noisy")])
        #expect(check.stdout.contains("ok      scale: 5 frames drawn at scale 1 and 2"), "\(check.stdout)")
        #expect(check.stdout.contains("ok      backdrop: the layers below survive"), "\(check.stdout)")
    }

    @Test("the host refuses a plugin whose defaults break its own table: a warning, then an unknown effect")
    func badDefaultRefused() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"version": 1, "duration": 1, "layers": [{"effect": "defect-bad-default"}]}"#, to: "job.json")
        let validate = CLI.run(["validate", job, "--plugin-path", Self.defects])
        #expect(validate.status == 65)
        #expect(
            validate.stderr.contains(
                "librenderfarm-defect-bad-default.so: invalid plugin descriptor: parameter \"size\": default 400: 400 "
                    + "is out of range (allowed: 1…100); fix the parameter table"), "\(validate.stderr)")
        #expect(validate.stderr.contains("unknown effect \"defect-bad-default\""), "\(validate.stderr)")
        let listed = CLI.run(["plugins", "--plugin-path", Self.defects])
        let loaded = listed.stdout.components(separatedBy: "not loaded:")
        #expect(!loaded[0].contains("defect-bad-default"), "\(listed.stdout)")
        #expect(loaded.last?.contains("librenderfarm-defect-bad-default.so") == true, "\(listed.stdout)")
        #expect(listed.stdout.contains("defect-wipes-backdrop"), "\(listed.stdout)")
    }

    @Test(
        "a table that breaks a rule is skipped, naming the library and its first problem; every command goes on",
        arguments: [
            ("nan-bound", #"parameter "size": min is not a number"#, "FAIL    parameter.size: min is not a number"),
            (
                "bad-names", #"parameter "size": the name is used twice"#,
                "FAIL    parameter.#2: the name is empty (or NULL) (the host refuses to load it)"
            ),
            (
                "bad-events", #"parameter "events": the events field "color" has unknown type "colour""#,
                #"the events field "size" is not name:type"#
            ),
        ])
    func brokenTableSkipped(_ defect: String, _ problem: String, _ finding: String) throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"duration": 0.1, "fps": 10, "canvas": {"width": 40, "height": 40}, "output": {"dir": "out"}, "#
                + #""layers": [{"effect": "floating-heart", "params": {"emitter": [20, 38], "size": 10}}]}"#,
            to: "job.json")
        let warning = "librenderfarm-defect-\(defect).so: invalid plugin descriptor: \(problem)"
        let path = ["--plugin-path", Self.defects]
        let listed = CLI.run(["plugins"] + path)
        #expect(listed.status == 0 && listed.signal == nil, "\(listed.stderr)")
        let notLoaded = listed.stdout.components(separatedBy: "not loaded:").last ?? ""
        #expect(notLoaded.contains(warning), "\(listed.stdout)")
        let json = CLI.run(["plugins", "--json"] + path)
        #expect(
            json.status == 0 && json.signal == nil && json.stderr.contains("renderfarm: warning: "), "\(json.stderr)")
        #expect(json.stderr.contains(warning), "\(json.stderr)")
        // A job that does not use it does not load it (CommandLine, "Conventions"): it goes on, with nothing to say.
        for command in [["validate", job], ["render", job, "--progress", "none"]] {
            let result = CLI.run(command + path)
            #expect(result.status == 0 && result.signal == nil, "\(command[0]): \(result.stderr)")
            #expect(!result.stderr.contains(warning), "\(command[0]): \(result.stderr)")
        }
        // A job that names it loads it: the library is skipped with its problem, and the layer's effect is unknown.
        let using = try folder.write(
            #"{"duration": 0.1, "fps": 10, "canvas": {"width": 40, "height": 40}, "output": {"dir": "out2"}, "#
                + #""layers": [{"effect": "defect-\#(defect)"}]}"#, to: "using.json")
        let refused = CLI.run(["validate", using] + path)
        #expect(refused.status == 65 && refused.signal == nil, "\(refused.stderr)")
        #expect(refused.stderr.contains(warning), "\(refused.stderr)")
        #expect(refused.stderr.contains("unknown effect \"defect-\(defect)\""), "\(refused.stderr)")
        let check = CLI.run(["plugin", "check", Self.library(defect)])
        #expect(check.status == 1 && check.signal == nil, "\(check.stdout)")
        #expect(check.stdout.contains(finding), "\(check.stdout)")
    }

    @Test("infinite bounds are unbounded: loaded, listed without a range, any number accepted")
    func infiniteBounds() throws {
        let path = ["--plugin-path", Self.defects]
        let listed = CLI.run(["plugins", "defect-infinite-bounds"] + path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("size  number, default 40"), "\(listed.stdout)")
        #expect(!listed.stdout.contains("null"), "\(listed.stdout)")
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"duration": 0.1, "fps": 10, "canvas": {"width": 40, "height": 40}, "output": {"dir": "out"}, "#
                + #""layers": [{"effect": "defect-infinite-bounds", "params": {"size": 1e300}}]}"#, to: "job.json")
        let validate = CLI.run(["validate", job] + path)
        #expect(validate.status == 0, "\(validate.stderr)")
        let check = CLI.run(["plugin", "check", Self.library("infinite-bounds")])
        #expect(check.stdout.contains("ok      parameter.size: number, default 40, documented"), "\(check.stdout)")
    }

    /// Events for the keyed fixtures, so that every kind of event edit is made: a time moved, a colour changed,
    /// an event added and one removed.
    static let events =
        ##"{"events": [{"time": 1, "color": "#FF0000"}, {"time": 2.5}, {"time": 0.5, "color": "#0000FF"}]}"##

    @Test(
        "keys that leave out one parameter fail naming it; the same keys with it pass, every edit made",
        arguments: [
            (
                "key-ignores-param", Int32(1),
                ##"FAIL    keys-cover-params: parameter "color" changed to "#40FF00" changes the pixels of frame 0 "##
                    + "but not its key"
            ),
            (
                "covered-keys", Int32(0),
                "ok      keys-cover-params: wherever an edit kept a frame's key, the frame kept its pixels (18 edits "
                    + "of 7 parameters and the job's duration;"
            ),
        ])
    func keysCoverParams(_ fixture: String, _ status: Int32, _ finding: String) throws {
        let check = CLI.run(["plugin", "check", Self.library(fixture), "--params", Self.events])
        #expect(check.status == status, "\(check.stdout)")
        #expect(check.stdout.contains(finding), "\(check.stdout)")
        #expect(check.stdout.contains(", \(status) failure"), "\(check.stdout)")
        #expect(!check.stdout.contains("not proven"), "every parameter is edited:\n\(check.stdout)")
    }

    @Test("a plugin that does not declare the flag gets a note: which parameters its keys miss, or that it could")
    func undeclaredKeysNoted() throws {
        let probe = Binary.testPluginDirectory + "/librenderfarm-test-probe.so"
        // The probe, a test double, breaks other rules (its trace); only its note matters here.
        let missing = CLI.run(["plugin", "check", probe, "--params", #"{"keyed": true}"#])
        #expect(
            missing.stdout.contains(
                #"note    keys-cover-params: keys do not cover parameter "rect" (changed: element 0 to 1: frame 0's "#
                    + "pixels change, its key does not): the host redraws every frame of the layer on any parameter "
                    + "edit, which is correct without the flag"), "\(missing.stdout)")
        let keyless = CLI.run(["plugin", "check", Self.library("noisy")])
        #expect(
            keyless.stdout.contains("note    keys-cover-params: reports no frame keys"), "\(keyless.stdout)")
    }

    @Test("plugins --json shows the flag next to static")
    func flagListed() throws {
        let listed = CLI.run(["plugins", "--json", "--plugin-path", Self.defects])
        #expect(listed.status == 0, "\(listed.stderr)")
        let plugins = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        let flags = Dictionary(
            uniqueKeysWithValues: plugins.compactMap { plugin in
                (plugin["id"] as? String).map { ($0, plugin["keysCoverParams"] as? Bool) }
            })
        #expect(flags["defect-covered-keys"] == .some(true))
        #expect(flags["defect-noisy"] == .some(false))
    }
}
