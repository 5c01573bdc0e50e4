import StrictJSON
import Testing

@testable import EffectKit

@Suite("Every problem of a layer at once")
struct EffectProblemsTests {
    @Test("a nested object reports every unknown key with a suggestion, and still reads the known ones")
    func nestedKeys() throws {
        var problems = EffectProblems()
        let value: JSONValue = ["dur": 1, "dampng": 2, "velocity": 0.5]
        let object = try #require(
            NestedObject(value, parameter: "spring", keys: ["duration", "damping", "velocity"], problems: &problems))
        #expect(try object.number("velocity", in: -100...100) == 0.5)
        #expect(
            problems.errors.map(\.description) == [
                "spring.dur: unknown key (did you mean \"duration\"?); allowed: duration, damping, velocity",
                "spring.dampng: unknown key (did you mean \"damping\"?); allowed: duration, damping, velocity",
            ])
    }

    @Test("numbers out of range show the value and the range in the host's words")
    func ranges() throws {
        let object = try NestedObject(
            ["damping": 2, "duration": "x"], parameter: "spring", keys: ["damping", "duration"])
        #expect(throws: EffectError(parameter: "spring.damping", "2 is out of range (allowed: 0.01…1)")) {
            try object.number("damping", in: 0.01...1)
        }
        #expect(throws: EffectError(parameter: "spring.duration", "expected a number in 0.01…10, got \"x\"")) {
            try object.number("duration", in: 0.01...10)
        }
    }

    @Test("collected problems become one error, one problem per line, each once")
    func collected() throws {
        var problems = EffectProblems()
        _ = problems.check { () throws(EffectError) -> Int in throw EffectError(parameter: "a", "bad") }
        _ = problems.check { () throws(EffectError) -> Int in throw EffectError(parameter: "a", "bad") }
        #expect(problems.check { () throws(EffectError) in 5 } == 5)
        problems.add(EffectError("layer-wide"))
        #expect(throws: EffectError.self) { try problems.throwIfAny() }
        let error = try #require(EffectError(collecting: problems.errors))
        #expect(error.description == "a: bad\nlayer-wide")
        #expect(error.all.count == 2)
    }
}
