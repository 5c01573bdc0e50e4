import Foundation
import Testing

@testable import RenderFarm

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
}
