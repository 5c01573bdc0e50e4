import Foundation
@testable import RenderFarmJobs
import Testing

@testable import RenderFarm

@Suite("A plugin's create messages at their place in the job file")
struct PluginProblemsTests {
    private func layer(_ index: Int, _ effect: String) -> LayerSpec {
        LayerSpec(effect: effect, start: 0, params: [:], path: "layers[\(index)]")
    }

    @Test("one 'name: problem' per line becomes one issue each, under layers[N].params")
    func severalLines() {
        let issues = PluginProblems.issues(
            "spring.damping: 2 is out of range\nitems[2].shape: unknown shape \"star\"\n", layer: layer(1, "x"))
        #expect(issues.map(\.path) == ["layers[1].params.spring.damping", "layers[1].params.items[2].shape"])
        #expect(issues.map(\.message) == ["2 is out of range", "unknown shape \"star\""])
        #expect(issues.allSatisfy { $0.severity == .error })
    }

    @Test("an older plugin's one-line message without a parameter keeps its old place")
    func oneLine() {
        let issues = PluginProblems.issues("out of memory: cannot allocate", layer: layer(0, "test-faults"))
        #expect(issues == [JobIssue(path: "layers[0].params", "test-faults: out of memory: cannot allocate")])
    }

    @Test("a layer inside a group is named by its place in the group")
    func grouped() {
        let inGroup = LayerSpec(effect: "x", start: 0, params: [:], path: "layers[1].group[0]")
        let issues = PluginProblems.issues("rate: too high", layer: inGroup)
        #expect(issues.map(\.path) == ["layers[1].group[0].params.rate"])
    }

    @Test("warnings without a parameter belong to the layer")
    func warnings() {
        let issues = PluginProblems.issues(
            ["3 of 5 items leave the canvas by 2.1 s"], layer: layer(2, "physics-bounce"), severity: .warning)
        #expect(issues == [JobIssue(path: "layers[2]", "3 of 5 items leave the canvas by 2.1 s", severity: .warning)])
        #expect(issues.first?.description == "warning: layers[2]: 3 of 5 items leave the canvas by 2.1 s")
    }

    @Test("the job's own problems first, then layer by layer in the order found")
    func order() {
        let issues = [
            JobIssue(path: "layers[1].params.rate", "a"), JobIssue(path: "fps", "b"),
            JobIssue(path: "layers[0].params.size", "c"), JobIssue(path: "layers[10].effect", "d"),
            JobIssue(path: "layers[0].params.spring.damping", "e"),
        ]
        #expect(PluginProblems.inFileOrder(issues).map(\.message) == ["b", "c", "e", "a", "d"])
    }

    @Test("an invalid job is still read as far as it goes, so its layers can be checked")
    func partial() throws {
        let text = #"{"duration": "long", "fps": 500, "layers": [{"effect": "floating-heart", "params": {"rate": 2}}]}"#
        let (spec, issues) = try JobLoader.decodeCollecting(Data(text.utf8), file: "job.json", defaultName: "job")
        #expect(issues.map(\.path) == ["fps", "duration"])
        #expect(spec.layers.map(\.effect) == ["floating-heart"] && spec.duration == 1 && spec.fps == 60)
    }
}
