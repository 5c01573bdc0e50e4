import Foundation
@testable import RenderFarmJobs
import Testing

@testable import RenderFarm

@Suite("Job files: decoding and validation")
struct JobValidationTests {
    private func decode(_ text: String) throws(JobError) -> JobSpec {
        try JobLoader.decode(Data(text.utf8), file: "job.json", defaultName: "job")
    }

    private func issues(_ text: String) -> [String] {
        do {
            _ = try decode(text)
            return []
        } catch .invalid(_, let issues) {
            return issues.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test("a minimal job gets every default of the job file reference")
    func defaults() throws {
        let spec = try decode(#"{"duration": 2, "layers": [{"effect": "floating-heart"}]}"#)
        #expect(spec.version == 1)
        #expect(spec.name == "job")
        #expect(spec.canvas == Canvas(width: 375, height: 667, scale: 2, background: .clear))
        #expect(spec.fps == 60)
        #expect(spec.frameCount == 120)
        #expect(spec.frames == FrameSet.all(120))
        #expect(spec.output.directory == "out/job")
        #expect(spec.output.fileName(ofFrame: 42) == "frame_00042.png")
        #expect(spec.output.compression == .fast)
        #expect(spec.retries == 1)
        #expect(spec.layers == [LayerSpec(effect: "floating-heart", start: 0, params: [:], path: "layers[0]")])
    }

    @Test("every problem is reported at once, each with its path, value and allowed range")
    func allProblemsAtOnce() {
        let found = issues(
            #"""
            {"fps": 0, "duration": -1, "canvas": {"width": 20000, "scael": 2}, "retries": 99,
             "output": {"compression": 12}, "layers": [{"effect": 3}, {"efect": "x"}]}
            """#)
        let expected = [
            "fps: 0 is out of range (allowed: greater than 0 and at most 240)",
            "duration: -1 is out of range",
            "canvas.scael: unknown key (did you mean \"scale\"?)",
            "canvas.width: 20000 is out of range (allowed: 1…16384)",
            "retries: 99 is out of range (allowed: 0…10)",
            "output.compression: 12 is out of range (allowed: 0…9)",
            "layers[0].effect: expected a string, got number",
            "layers[1].efect: unknown key (did you mean \"effect\"?)",
            "layers[1].effect: missing",
        ]
        for message in expected {
            #expect(found.contains { $0.hasPrefix(message) }, "missing: \(message)\nin: \(found)")
        }
    }

    @Test("a newer version is refused with the highest supported one named")
    func newerVersion() {
        #expect(
            issues(#"{"version": 2, "duration": 1, "layers": []}"#)
                == ["version: job version 2 is newer than this renderer supports (highest: 1); upgrade renderfarm"])
    }

    @Test(
        "frames outside the job and malformed frame sets name the frames key",
        arguments: [
            (#""0-600""#, "frames: frame 60 is outside the job (0-59 at this duration and fps)"),
            (#""1-""#, "frames: "),
            ("12", "frames: expected a string, got number"),
        ])
    func frames(value: String, message: String) {
        let found = issues(#"{"duration": 1, "frames": \#(value), "layers": [{"effect": "e"}]}"#)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix(message) == true, "\(found)")
    }

    @Test("a canvas is limited in pixels (points × scale), not only in points")
    func pixelLimit() {
        let found = issues(#"{"duration": 1, "canvas": {"width": 8200, "scale": 2}, "layers": [{"effect": "e"}]}"#)
        #expect(found == ["canvas: 16400×1334 pixels; each side must be 1…16384"])
    }

    @Test("a prefix that could leave the folder is refused", arguments: ["../x", ".hidden", "a/b"])
    func prefix(value: String) {
        let found = issues(#"{"duration": 1, "output": {"prefix": "\#(value)"}, "layers": [{"effect": "e"}]}"#)
        #expect(found.first?.hasPrefix("output.prefix:") == true)
    }

    @Test(
        "syntax errors carry line and column",
        arguments: [
            (#"{"duration": 1,, }"#, "line 1, column 16"),
            ("{\n\"duration\": 1,\n\"duration\": 2}", "line 3, column 1: duplicate key"),
            (#"{"duration": NaN}"#, "line 1, column 14"),
            ("", "empty"),
        ])
    func syntax(text: String, fragment: String) {
        do {
            _ = try decode(text)
            Issue.record("accepted invalid JSON")
        } catch .syntax(_, let message) {
            #expect(message.contains(fragment), "\(message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a job file that is not an object, or empty, is invalid", arguments: ["[]", "{}", "3"])
    func notAJob(text: String) {
        #expect(!issues(text).isEmpty)
    }
}
