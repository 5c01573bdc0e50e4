import Foundation
import Testing

/// Issue 45: `plugin check` renders only five frames unless told `--frames all|SET`; then a crash, an abort,
/// a hang or an error on any checked frame fails it naming the frame. A plugin that keeps what it allocates in
/// every render fails the memory check.
@Suite("plugin check: every frame, and memory over hundreds of frames")
struct PluginCheckFramesTests {
    static func library(_ defect: String) -> String { PluginCheckDefectTests.library(defect) }

    /// Each defect that strikes at frame 3, and how `--frames all` reports it.
    static let atFrame3 = [
        ("crash-at-3", "FAIL    render: frame 3 crashed: the worker process was killed by SIGSEGV"),
        ("abort-at-3", "FAIL    render: frame 3 crashed: the worker process was killed by SIGABRT"),
        (
            "hang-at-3",
            "FAIL    render: frame 3 did not finish within 2 s: a hang (--frame-timeout SECONDS allows longer)"
        ),
        ("error-at-3", "FAIL    render: frame 3 at the defaults: the plan ran out at frame 3 (test fixture)"),
    ]

    @Test("without --frames, a plugin that fails only at frame 3 passes: the five frames miss it")
    func fiveFramesMissFrame3() throws {
        for (defect, _) in Self.atFrame3 {
            let check = CLI.run(["plugin", "check", Self.library(defect)])
            #expect(check.status == 0, "\(defect): \(check.stdout)")
            #expect(check.stdout.contains("ok      render: frames 0, 29, 59, 89, 119 of 120"), "\(check.stdout)")
        }
    }

    @Test("with --frames all, a crash, an abort, a hang and an error at frame 3 each fail naming frame 3")
    func everyFrameCatchesFrame3() throws {
        for (defect, finding) in Self.atFrame3 {
            let start = ContinuousClock.now
            let check = CLI.run(["plugin", "check", Self.library(defect), "--frames", "all", "--frame-timeout", "2"])
            #expect(check.status == 1 && check.signal == nil, "\(defect): \(check.stdout)")
            #expect(check.stdout.contains(finding), "\(defect): \(check.stdout)")
            #expect(check.stdout.contains(", 1 failure"), "\(defect): \(check.stdout)")
            // The descriptor was checked before the first call, and reached the output.
            #expect(check.stdout.contains("ok      descriptor.id: \"defect-\(defect)\""), "\(check.stdout)")
            #expect(ContinuousClock.now - start < .seconds(30), "\(defect)")
        }
        // A set names the frames checked besides the five.
        let set = CLI.run(["plugin", "check", Self.library("error-at-3"), "--frames", "1-3"])
        #expect(set.status == 1 && set.stdout.contains("FAIL    render: frame 3 at the defaults"), "\(set.stdout)")
        let sound = CLI.run(["plugin", "check", Self.library("noisy"), "--frames", "all"])
        #expect(sound.stdout.contains("ok      render: all 120 frames at the defaults"), "\(sound.stdout)")
    }

    @Test("in the check's own process (--sandbox off) an error names frame 3 and a hang ends the check, exit 1")
    func inProcess() throws {
        let error = try Binary.run(
            ["plugin", "check", Self.library("error-at-3"), "--frames", "all", "--sandbox", "off"])
        #expect(error.status == 1, "\(error.stdout)")
        #expect(error.stdout.contains("FAIL    render: frame 3 at the defaults"), "\(error.stdout)")
        // The check ends inside the hung frame, and leaves nothing in its temporary folder.
        let scratch = try TemporaryFolder()
        let hang = try Binary.run(
            [
                "plugin", "check", Self.library("hang-at-3"), "--frames", "all", "--sandbox", "off",
                "--frame-timeout", "1",
            ],
            environment: ["TMPDIR": scratch.path], timeout: 60)
        #expect(hang.status == 1 && hang.signal == nil, "\(hang.stdout)\(hang.stderr)")
        #expect(
            hang.stderr.contains(
                "FAIL    render: frame 3 did not finish within 1 s: a hang (--frame-timeout SECONDS allows longer); "
                    + "with --sandbox off the check ends here"), "\(hang.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(left.isEmpty, "left in TMPDIR: \(left)")
    }

    @Test("--frames outside the checked setting, or not a frame set, is refused naming it")
    func framesRefused() throws {
        let outside = CLI.run(["plugin", "check", Self.library("noisy"), "--frames", "100-130"])
        #expect(outside.status == 65, "\(outside.stderr)")
        #expect(outside.stderr.contains("--frames: frame 120 is not in the checked setting's frames 0-119"))
        let wrong = CLI.run(["plugin", "check", Self.library("noisy"), "--frames", "most"])
        #expect(wrong.status == 65 && wrong.stderr.contains("--frames expects all or a frame set"), "\(wrong.stderr)")
    }

    @Test("1 MiB kept in every render fails the memory check; a sound plugin passes it, and 0 renders skip it")
    func leakFails() throws {
        let leak = CLI.run(["plugin", "check", Self.library("leak")])
        #expect(leak.status == 1, "\(leak.stdout)")
        let line = leak.stdout.split(separator: "\n").first { $0.contains("FAIL    memory: leaks about ") } ?? ""
        let words = line.split(separator: " ")
        let perFrame = words.firstIndex(of: "about").flatMap { Int(words[$0 + 1]) }
        #expect((1000...1100).contains(perFrame ?? 0), "\(leak.stdout)")
        #expect(line.contains("KiB per frame: the resident set grew from "), "\(leak.stdout)")
        #expect(leak.stdout.contains(", 1 failure"), "\(leak.stdout)")
        let sound = CLI.run(["plugin", "check", Self.library("noisy")])
        #expect(
            sound.stdout.contains(
                "ok      memory: 300 renders after 30 to warm up keep the resident set within 64 MiB, without steady "
                    + "growth"), "\(sound.stdout)")
        let skipped = CLI.run(["plugin", "check", Self.library("leak"), "--memory-frames", "0"])
        #expect(skipped.status == 0 && skipped.stdout.contains("note    memory: not checked (--memory-frames 0)"))
    }

    /// The C compiler's AddressSanitizer runtime (`cc -print-file-name=libasan.so`), when it has one.
    static let libasan: String? = {
        guard let cc = Tools.find("cc"), let found = try? Tools.run(cc, ["-print-file-name=libasan.so"]) else {
            return nil
        }
        let path = found.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.hasPrefix("/") && FileManager.default.fileExists(atPath: path) ? path : nil
    }()

    @Test(
        "under LeakSanitizer the check runs in its own process, and each leak names its allocation site in the plugin",
        .enabled(if: libasan != nil, "the C compiler has no libasan.so (apt-get install gcc)"))
    func leakSanitizer() throws {
        let library = Binary.testPluginDirectory + "/defects-asan/librenderfarm-defect-leak.so"
        try #require(FileManager.default.fileExists(atPath: library), "run `make test-plugin`")
        let check = try Binary.run(
            ["plugin", "check", library], environment: ["LD_PRELOAD": Self.libasan ?? "", "ASAN_OPTIONS": ""])
        // LeakSanitizer ends the process with ASan's exit status when it finds leaks.
        #expect(check.status == 1, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("note    memory: not checked under a sanitizer"), "\(check.stdout)")
        #expect(check.stderr.contains("ERROR: LeakSanitizer: detected memory leaks"), "\(check.stderr)")
        // Each leak's first frame past the allocator is the plugin's render, file and line.
        let sites = check.stderr.components(separatedBy: "leak of ").dropFirst().map { report in
            report.split(separator: "\n").first { $0.contains("#1 ") }.map(String.init) ?? ""
        }
        #expect(!sites.isEmpty)
        for site in sites { #expect(site.contains(" in render ") && site.contains("defect_plugin.c:"), "\(site)") }
    }
}
