import Foundation
import Testing

/// Issue 32: `plugin check` catches a drawing that ignores the canvas scale and one that wipes the
/// layers below; the host refuses a plugin whose defaults break its own parameter table.
@Suite("plugin check: scale, backdrop, defaults")
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
        ])
    func defectFails(_ defect: String, _ finding: String) throws {
        let check = try Binary.run(["plugin", "check", Self.library(defect)])
        #expect(check.status == 1, "\(check.stdout)")
        #expect(check.stdout.contains(finding), "\(check.stdout)")
        #expect(check.stdout.contains("defect-\(defect): "), "\(check.stdout)")
        #expect(check.stdout.contains(", 1 failure"), "exactly one finding fails:\n\(check.stdout)")
    }

    @Test("a sound plugin passes the scale and backdrop checks")
    func soundPluginPasses() throws {
        let check = try Binary.run(["plugin", "check", Self.library("noisy")])
        #expect(check.stdout.contains("ok      scale: 5 frames drawn at scale 1 and 2"), "\(check.stdout)")
        #expect(check.stdout.contains("ok      backdrop: the layers below survive"), "\(check.stdout)")
    }

    @Test("the host refuses a plugin whose defaults break its own table: a warning, then an unknown effect")
    func badDefaultRefused() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            #"{"version": 1, "duration": 1, "layers": [{"effect": "defect-bad-default"}]}"#, to: "job.json")
        let validate = try Binary.run(["validate", job, "--plugin-path", Self.defects])
        #expect(validate.status == 65)
        #expect(
            validate.stderr.contains(
                "librenderfarm-defect-bad-default.so: invalid plugin descriptor: defaults outside its own parameter "
                    + "table (size: default 400: 400 is out of range (allowed: 1…100))"), "\(validate.stderr)")
        #expect(validate.stderr.contains("unknown effect \"defect-bad-default\""), "\(validate.stderr)")
        let listed = try Binary.run(["plugins", "--plugin-path", Self.defects])
        #expect(!listed.stdout.contains("defect-bad-default"), "\(listed.stdout)")
        #expect(listed.stdout.contains("defect-wipes-backdrop"), "\(listed.stdout)")
    }
}
