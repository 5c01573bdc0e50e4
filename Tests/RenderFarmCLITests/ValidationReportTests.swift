import Foundation
import Testing

/// Issue 12, item 1: one `validate` shows every problem of every job, host and plugins together.
@Suite("validate reports every problem in one pass")
struct ValidationReportTests {
    /// Four wrong nested values (spring.dur, spring.damping, colors[0], barrier.form) that used to take five
    /// rounds, plus host problems, across three layers.
    static let badJob = """
        {
          "duration": 2,
          "fps": 500,
          "layers": [
            { "effect": "floating-heart",
              "params": { "spring": { "dur": 1, "damping": 2 }, "colors": ["red"], "sise": 3 } },
            { "effect": "floating-heart", "params": { "rate": 500, "spring": { "damping": "x" } } },
            { "effect": "physics-bounce",
              "params": { "items": [ { "at": [1, 2], "shap": "gift" }, { "at": [1] } ],
                          "barrier": { "form": [0, 1], "to": [3, 4] } } }
          ]
        }
        """

    @Test("host and plugin problems of three layers, each with its place, the value and a suggestion")
    func everyProblemAtOnce() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(Self.badJob, to: "bad.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65)
        let expected = [
            "bad.json: fps: 500 is out of range (allowed: greater than 0 and at most 240)",
            "bad.json: layers[0].params.sise: \"floating-heart\" has no parameter \"sise\" (did you mean \"size\"?)",
            "bad.json: layers[0].params.spring.dur: unknown key (did you mean \"duration\"?); allowed: duration, "
                + "damping, velocity",
            "bad.json: layers[0].params.spring.damping: 2 is out of range (allowed: 0.01…1)",
            "bad.json: layers[0].params.colors[0]: expected a colour \"#RRGGBB\" or \"#RRGGBBAA\", got \"red\"",
            "bad.json: layers[1].params.rate: 500 is out of range (allowed: 0…120)",
            "bad.json: layers[1].params.spring.damping: expected a number in 0.01…1, got \"x\"",
            "bad.json: layers[2].params.items[0].shap: unknown key (did you mean \"shape\"?)",
            "bad.json: layers[2].params.items[1].at: expected a point [x, y], got [1]",
            "bad.json: layers[2].params.barrier.form: unknown key (did you mean \"from\"?)",
            "bad.json: layers[2].params.barrier.from: missing (expected a point [x, y])",
        ]
        for line in expected { #expect(result.stderr.contains(line), "missing: \(line)\n\(result.stderr)") }
        #expect(result.stderr.components(separatedBy: "renderfarm: error:").count - 1 == expected.count)
    }

    @Test("a bad layer-level image is reported as the layer's image, once")
    func layerImage() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write(
            """
            { "duration": 1, "layers": [ { "effect": "physics-bounce",
              "params": { "image": "nope.png", "items": [ { "at": [10, 10] }, { "at": [60, 10] } ] } } ] }
            """, to: "image.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65)
        #expect(result.stderr.contains("layers[0].params.image: nope.png not found"), "\(result.stderr)")
        #expect(!result.stderr.contains("items[0].image"))
        #expect(result.stderr.components(separatedBy: "nope.png not found").count == 2)
    }

    @Test("a missing comma shows the line, a caret and the likely fix")
    func syntaxExcerpt() throws {
        let folder = try TemporaryFolder()
        let job = try folder.write("{\n  \"version\": 1,\n  \"duration\": 2\n  \"layers\": []\n}\n", to: "comma.json")
        let result = CLI.run(["validate", job])
        #expect(result.status == 65)
        #expect(result.stderr.contains("line 4, column 3: expected ',' or '}' after an object member"))
        #expect(result.stderr.contains("(missing ',' after line 3?)"))
        #expect(result.stderr.contains("    4 |   \"layers\": []\n      |   ^\n"), "\(result.stderr)")
    }

    @Test("several jobs: each job's problems under its file name, valid jobs say so, nothing rendered")
    func severalJobs() throws {
        let folder = try TemporaryFolder()
        try folder.write(
            #"{"duration": 1, "fps": 10, "layers": [{"effect": "floating-heart"}]}"#, to: "jobs/a-good.json")
        try folder.write(#"{"duration": 1, "fps": 10, "layers": [{"effect": "floating-hart"}]}"#, to: "jobs/b-bad.json")
        try folder.write("{", to: "jobs/c-broken.json")
        let jobs = folder.url.appendingPathComponent("jobs").path
        let validate = CLI.run(["validate", jobs])
        #expect(validate.status == 65)
        #expect(validate.stdout.contains("ok: \(jobs)/a-good.json: 10 frames"), "\(validate.stdout)")
        #expect(validate.stderr.contains("b-bad.json: layers[0].effect: unknown effect \"floating-hart\""))
        #expect(validate.stderr.contains("c-broken.json: line 1, column 2: "))
        #expect(validate.stderr.contains("2 of 3 job files have problems (2 problems); 1 valid"), "\(validate.stderr)")

        let out = folder.url.appendingPathComponent("out").path
        let render = CLI.run(["render", jobs, "--out", out, "--progress", "none"])
        #expect(render.status == 65)
        #expect(render.stderr.contains("a-good.json: ok"), "\(render.stderr)")
        #expect(render.stderr.contains("b-bad.json: layers[0].effect"))
        #expect(render.stderr.contains("c-broken.json: line 1"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("job files are named the same way everywhere: relative inside the current folder")
    func fileNames() throws {
        let folder = try TemporaryFolder()
        try folder.write(#"{"duration": 1, "fps": 10, "layers": [{"effect": "floating-hart"}]}"#, to: "bad.json")
        try folder.write("{", to: "broken.json")
        let result = try Binary.run(
            ["validate", "bad.json", folder.url.appendingPathComponent("broken.json").path], in: folder.url)
        #expect(result.stderr.contains("renderfarm: error: bad.json: layers[0].effect"), "\(result.stderr)")
        #expect(result.stderr.contains("renderfarm: error: broken.json: line 1"), "\(result.stderr)")
    }
}
