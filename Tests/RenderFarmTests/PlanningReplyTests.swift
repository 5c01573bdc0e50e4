import Foundation
import Testing

@testable import RenderFarm
@testable import RenderFarmJobs

/// `render --isolate`'s planning worker (`IsolatedPlanner`) replies what creating its jobs' layers gave; the
/// render reads it as untrusted input. Generated replies read back as exactly what was sent; random lines,
/// truncations and forged fields are refused (nil), never taken for another reply, never a crash.
@Suite("Planning worker replies: generated, truncated and forged")
struct PlanningReplyTests {
    static let caseCount = ProcessInfo.processInfo.environment["RENDERFARM_FUZZ_CASES"].flatMap { Int($0) } ?? 300

    /// Reads `lines` as the render does, a line at a time; nil when refused or cut short.
    static func read(_ lines: [String]) -> [Int: [Int: CreatedLayer]]? {
        var rest = lines[...]
        let next = { () throws(WorkerChannel.Failure) -> String in
            guard let line = rest.popFirst() else { throw .closed }
            return line
        }
        return (try? IsolatedPlanner.read(next)) ?? nil
    }

    /// Random text with the characters that matter to the protocol: quotes, backslashes, newlines, spaces.
    static func text(_ random: inout SystemRandomNumberGenerator) -> String {
        let alphabet = Array("ab /.:\"\\\n\t{}é漢😀0")
        return String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
    }

    static func reply(_ random: inout SystemRandomNumberGenerator) -> [Int: [Int: CreatedLayer]] {
        var jobs: [Int: [Int: CreatedLayer]] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            var layers: [Int: CreatedLayer] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                layers[Int.random(in: 0..<8, using: &random)] =
                    Bool.random(using: &random)
                    ? .failed(text(&random))
                    : .created(
                        warnings: (0..<Int.random(in: 0...2, using: &random)).map { _ in text(&random) },
                        inputFiles: (0..<Int.random(in: 0...3, using: &random)).map { _ in text(&random) })
            }
            jobs[Int.random(in: 0..<50, using: &random)] = layers
        }
        return jobs
    }

    @Test("a generated reply reads back as sent; every truncation of it is refused")
    func roundTrip() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<Self.caseCount {
            let sent = Self.reply(&random)
            let lines = IsolatedPlanner.lines(sent)
            #expect(Self.read(lines) == sent, "\(lines)")
            #expect(lines.allSatisfy { !$0.contains("\n") && $0.utf8.count <= WorkerReplyCheck.maximumLine })
            for cut in 0..<lines.count { #expect(Self.read(Array(lines.prefix(cut))) == nil) }
        }
    }

    @Test("forged lines are refused: unknown words, layers outside a job, bad numbers, unquoted text")
    func forged() {
        let forgeries: [[String]] = [
            ["layer 0", "planned"],
            ["warning \"x\"", "planned"],
            ["job 0", "input \"x\"", "planned"],
            ["job 0", "layer 0", "input x", "planned"],
            ["job 0", "layer 0", "warning \"x", "planned"],
            ["job -1", "planned"],
            ["job 1e3", "planned"],
            ["job 0", "job 0", "planned"],
            ["job 0", "layer 99999", "planned"],
            ["job 0", "failed 0", "planned"],
            ["job 0", "failed 0 x", "planned"],
            ["job 0", "layer 0 extra", "planned"],
            ["ready 00", "planned"],
            ["job 0", "pixels 12", "planned"],
        ]
        for lines in forgeries { #expect(Self.read(lines) == nil, "\(lines)") }
        #expect(
            Self.read(["job 3", "layer 1", "input \"a b\"", "failed 2 \"no\"", "planned"])
                == [3: [1: .created(warnings: [], inputFiles: ["a b"]), 2: .failed("no")]])
    }

    @Test("random lines never crash the render and never read as a reply with a layer")
    func random() {
        var random = SystemRandomNumberGenerator()
        let words = ["job", "layer", "failed", "warning", "input", "planned", "", " ", "0", "\"x\"", "-", "1"]
        for _ in 0..<Self.caseCount {
            let lines = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                (0..<Int.random(in: 1...3, using: &random)).map { _ in words.randomElement(using: &random)! }
                    .joined(separator: " ")
            }
            guard let read = Self.read(lines) else { continue }
            // What a random reply may say is exactly what its lines say: re-encoded, it reads the same.
            #expect(Self.read(IsolatedPlanner.lines(read)) == read, "\(lines)")
        }
    }

    /// A job of `count` layers of the built-in effects, in a random order.
    static func job(layers count: Int, _ random: inout SystemRandomNumberGenerator) throws -> LoadedJob {
        let effects = ["gradient", "floating-heart", "shape", "parabolic-drop"]
        let layers = (0..<count).map { _ in #"{"effect": "\#(effects.randomElement(using: &random) ?? "shape")"}"# }
        let text = """
            {"version": 1, "name": "reply", "canvas": {"width": 40, "height": 30, "background": "#000000"},
             "fps": 10, "duration": 1, "layers": [\(layers.joined(separator: ", "))]}
            """
        let spec = try JobLoader.decode(Data(text.utf8), file: "reply.json", defaultName: "reply")
        return LoadedJob(spec: spec, file: "/tmp/reply.json", directory: "/tmp")
    }

    @Test("a reply that leaves layers out names each of them and its plugin; one with another layer is refused")
    func leftOut() throws {
        let catalog = LayerCreationTests.catalog
        var options = PlanOptions(outputOverride: "/tmp/rf-reply-never-written")
        options.creator = IsolatedPlanner(arguments: [], pluginFolders: [], scale: nil)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<Self.caseCount / 10 {
            let job = try Self.job(layers: Int.random(in: 1...6, using: &random), &random)
            let count = job.spec.layers.count
            var reported: [Int: CreatedLayer] = [:]
            for index in 0..<count where Bool.random(using: &random) {
                reported[index] = .created(warnings: [], inputFiles: [])
            }
            let forged = Int.random(in: 0..<4, using: &random) == 0
            if forged { reported[count + Int.random(in: 0...3, using: &random)] = .failed("") }
            let issues: [JobIssue]
            do {
                _ = try RenderPlan.plan(
                    job, catalog: catalog, options: options, jobCount: 1, created: .success(reported))
                issues = []
            } catch {
                guard case .invalid(_, let found) = error else { throw error }
                issues = found
            }
            if forged {
                #expect(issues.map(\.message) == ["the planning worker sent a reply the protocol does not have"])
                continue
            }
            let missing = (0..<count).filter { reported[$0] == nil }
            #expect(issues.map(\.path) == missing.map { "layers[\($0)].effect" }, "\(issues)")
            for (issue, index) in zip(issues, missing) {
                let effect = job.spec.layers[index].effect
                #expect(issue.message.contains("effect \"\(effect)\""), "\(issue)")
                #expect(catalog[effect].map { issue.message.contains($0.info.path) } == true, "\(issue)")
            }
        }
    }
}
